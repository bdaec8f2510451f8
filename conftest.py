"""What is not collected on a Python where it cannot run.

The pydantic-ai extra (``pydantic-ai-slim`` 2.68+, whose capabilities the adapter
uses) needs Python 3.11: on 3.10 it cannot be installed, so neither the adapter's
module (collected for its docstring examples) nor its tests are collected there. This
is not a skip (CI turns every skip into a failure): there is nothing to run.
"""

from __future__ import annotations

import sys

collect_ignore = (
    ["toolfix/integrations/pydantic_ai.py", "tests/test_integration_pydantic_ai.py"]
    if sys.version_info < (3, 11)
    else []
)
