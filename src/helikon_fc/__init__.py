"""helikon_fc: typed, testable LLM agents and multi-agent systems for trio.

Everything an application needs is re-exported here; the IO-free core lives in
`helikon_fc.core`, the simulator in `helikon_fc.testing`, the OpenAI provider in `helikon_fc.openai`.
"""
