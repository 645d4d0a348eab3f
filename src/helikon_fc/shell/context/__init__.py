"""What a run carries: the RunContext and its parts (state, signals, cancellation, session, worker
gate), its config, and the control values it holds (hook points and answers, guardrail verdicts,
permissions, approvals).
"""
