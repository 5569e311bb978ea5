"""Start llama-cpp-python's server with weight repacking off (recording only, never CI).

On CPUs that report AMX but whose VM does not grant it, llama.cpp's AMX repacking
faults on the first generated token (``general protection fault in libggml-cpu.so``).
This sets ``use_extra_bufts = False`` in the default model parameters, then runs
``llama_cpp.server`` with the given arguments::

    /opt/llamavenv/bin/python tests/support/run_llama_cpp_server.py --model M.gguf --n_ctx 2048 --port 8000
"""

from __future__ import annotations

import runpy
from typing import Any

import llama_cpp.llama_cpp as native  # type: ignore[import-not-found]

_default_params = native.llama_model_default_params


def _params_without_repacking() -> Any:
    params = _default_params()
    params.use_extra_bufts = False
    return params


native.llama_model_default_params = _params_without_repacking
runpy.run_module("llama_cpp.server", run_name="__main__")
