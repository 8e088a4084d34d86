#!/usr/bin/env bash
# Print the first Python >= 3.12 found on PATH or in pyenv's versions (Django 6.1 needs 3.12+).
for candidate in python3.12 "$HOME"/.pyenv/versions/3.12*/bin/python3 python3.13 "$HOME"/.pyenv/versions/3.13*/bin/python3 python3; do
  if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then
    command -v "$candidate"
    exit 0
  fi
done
exit 1
