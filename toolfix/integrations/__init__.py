"""Adapters that put toolfix into agent frameworks and servers.

One module per framework, each behind its own extra:

* ``toolfix.integrations.pydantic_ai``: ``pip install "toolfix[pydantic-ai]"``
* ``toolfix.integrations.langchain``: ``pip install "toolfix[langchain]"``
* ``toolfix.integrations.openai_agents``: ``pip install "toolfix[openai-agents]"``
* ``toolfix.integrations.litellm_proxy``: ``pip install "toolfix[proxy]"`` (the hook
  behind ``toolfix serve``)
"""
