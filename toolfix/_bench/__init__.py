"""The ``toolfix bench`` harness and the BFCL-generated broken-tool-call corpus.

* :mod:`.corpus`: the corpus line format (pydantic models) and loader;
* :mod:`.bfcl`, :mod:`.render`, :mod:`.mutate`, :mod:`.generate`: the generator
  (``toolfix corpus generate``);
* :mod:`.strategies`, :mod:`.runner`, :mod:`.score`, :mod:`.report`: the benchmark
  (``toolfix bench``);
* :mod:`.cli`: the two commands, mounted on the main CLI.

Private package: the command line and docs/benchmarks.md are the public surface.
"""
