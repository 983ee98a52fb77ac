#!/usr/bin/env bash
# The Python API reference: builds docs/api (Sphinx autodoc over the installed tack package's
# docstrings) into build/api-html with every warning an error and every cross reference checked
# (-W -n), runs the docstrings' examples as doctests (Sphinx's doctest builder), and type-checks
# examples/python with mypy against the installed package (python/mypy.ini). Takes the Python
# of the environment tack is installed in, build/venv/bin/python by default:
#   bash scripts/api_docs.sh [PYTHON]
# It needs sphinx and mypy there (pip install sphinx mypy). Under a minute.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

py="${1:-build/venv/bin/python}"
if ! "$py" -c "import tack, sphinx, mypy" 2>/dev/null; then
  echo "api_docs: $py needs tack installed, and sphinx and mypy (\"$py -m pip install sphinx mypy\")" >&2
  exit 1
fi
# The doctests compile a few kernels: a cache of their own, so a second run compiles nothing.
export TACK_CACHE_DIR="${TACK_CACHE_DIR:-$PWD/build/api-docs-tack-cache}"
export POCL_CACHE_DIR="${POCL_CACHE_DIR:-$PWD/build/pocl-cache}"

echo "api_docs: HTML into build/api-html"
"$py" -m sphinx -b html -W -n --keep-going -q docs/api build/api-html
echo "api_docs: doctests"
"$py" -m sphinx -b doctest -W -n --keep-going -q docs/api build/api-doctest
grep -A4 "^Doctest summary" build/api-doctest/output.txt
echo "api_docs: mypy examples/python"
"$py" -m mypy --config-file python/mypy.ini --cache-dir build/mypy-cache examples/python/*.py
echo "api_docs: OK (open build/api-html/index.html)"
