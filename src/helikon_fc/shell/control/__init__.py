"""What a run asks before it proceeds, and how: firing hooks, running guardrails, resolving a tool
call's permission, redacting tool output.
"""
