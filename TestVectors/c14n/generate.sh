#!/usr/bin/env bash
# Writes NAME.expected for every NAME.xml here: the exclusive XML canonicalization 1.0 WITHOUT comments of the
# document's root element, as libxml2's xmllint computes it (Debian's libxml2-utils; `xmllint --exc-c14n` keeps
# comments, and in canonical output every `<` of text is escaped, so each `<!--…-->` left is a comment and is
# removed). TVEKit's own canonicalizer and its libxml2 wrapper must give these bytes exactly (TVESAMLTests,
# C14NVectorTests).
set -euo pipefail
cd "$(dirname "$0")"
for input in *.xml; do
  xmllint --exc-c14n "$input" | python3 -c 'import re, sys; sys.stdout.write(re.sub(r"<!--.*?-->", "", sys.stdin.read(), flags=re.S))' \
    > "${input%.xml}.expected"
done
echo "wrote $(ls *.expected | wc -l) expected outputs"
