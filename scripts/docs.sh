#!/usr/bin/env bash
# Builds the DocC documentation of every library product (`make docs`) into .build-docs/site/<Module>/, a static site
# (open .build-docs/site/index.html through any static file server), with the toolchain's `docc` and DocC warnings as
# errors; first checks that every public declaration has a documentation comment (scripts/check-docs.py) and that
# every ```swift block of the articles is code the tests hold (scripts/check-snippets.py).
#
#   scripts/docs.sh            # check, then build every module's documentation
#   scripts/docs.sh --check    # only the checks (`make docs-check`)
#
# The symbol graphs come from `swift package dump-symbol-graph` (the package's own debug build), so no documentation
# plugin is added to the package: library users resolve nothing for it.
set -euo pipefail
cd "$(dirname "$0")/.."
check_only=0
[ "${1:-}" = "--check" ] && check_only=1

# The library products' modules, from the manifest.
modules=$(swift package dump-package | python3 -c '
import json, sys
package = json.load(sys.stdin)
names = []
for product in package["products"]:
    if "library" in product["type"]:
        names += [t for t in product["targets"] if t not in names]
print(" ".join(names))')

echo "== symbol graphs"
swift package dump-symbol-graph --minimum-access-level public --skip-synthesized-members --emit-extension-block-symbols \
    > .build/dump-symbol-graph.log 2>&1 || { tail -20 .build/dump-symbol-graph.log; exit 1; }
graphs=$(sed -n 's/^Files written to //p' .build/dump-symbol-graph.log | tail -1)
[ -d "$graphs" ] || { echo "error: no symbol graphs (see .build/dump-symbol-graph.log)" >&2; exit 1; }

echo "== documentation comments"
# shellcheck disable=SC2086
python3 scripts/check-docs.py "$graphs" $modules
echo "== the articles' Swift code is in the tests"
python3 scripts/check-snippets.py
[ "$check_only" = 1 ] && exit 0

out=.build-docs/site
rm -rf .build-docs/graphs "$out"
mkdir -p "$out"
links=""
for module in $modules; do
    catalog="Sources/$module/Docs.docc"
    [ -d "$catalog" ] || { echo "error: $module has no documentation catalog ($catalog)" >&2; exit 1; }
    mkdir -p ".build-docs/graphs/$module"
    cp "$graphs/$module.symbols.json" ".build-docs/graphs/$module/"
    for extension in "$graphs/$module@"*.symbols.json; do
        [ -e "$extension" ] && cp "$extension" ".build-docs/graphs/$module/"
    done
    echo "== $module"
    lower=$(echo "$module" | tr '[:upper:]' '[:lower:]')
    docc convert "$catalog" --additional-symbol-graph-dir ".build-docs/graphs/$module" --output-path "$out/$module" \
        --fallback-display-name "$module" --fallback-bundle-identifier "org.tvekit.$module" \
        --transform-for-static-hosting --hosting-base-path "$module" --warnings-as-errors >/dev/null
    links="$links<li><a href=\"$module/documentation/$lower/\">$module</a></li>"
done
cat > "$out/index.html" <<HTML
<!doctype html><html lang="en"><meta charset="utf-8"><title>TVEKit documentation</title>
<h1>TVEKit documentation</h1><ul>$links</ul></html>
HTML
echo "documentation of $(echo "$modules" | wc -w) modules in $out/ (index.html)"
