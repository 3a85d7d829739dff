#!/usr/bin/env bash
# Vendors the web page's third-party libraries into web/static/vendor/ (the
# page loads nothing from a CDN; the files are embedded in the server binary):
#   marked    — Markdown to HTML (MIT)                       https://github.com/markedjs/marked
#   DOMPurify — HTML sanitiser (MPL-2.0 OR Apache-2.0)        https://github.com/cure53/DOMPurify
# Run it to update them: bump the versions below, run, look at the diff,
# run the chat browser tests (tests/browser/chat-markdown.test.js).
set -euo pipefail
cd "$(dirname "$0")/.."

MARKED_VERSION=18.2.1
DOMPURIFY_VERSION=3.5.0

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm init -y >/dev/null &&
	npm install --no-audit --no-fund --ignore-scripts "marked@$MARKED_VERSION" "dompurify@$DOMPURIFY_VERSION" >/dev/null)

out=web/static/vendor
mkdir -p "$out"
# The ES module builds, without their source-map comment (the maps are not vendored).
sed '/^\/\/# sourceMappingURL=/d' "$work/node_modules/marked/lib/marked.esm.js" >"$out/marked.esm.js"
sed '/^\/\/# sourceMappingURL=/d' "$work/node_modules/dompurify/dist/purify.es.mjs" >"$out/purify.es.js"
cp "$work/node_modules/marked/LICENSE" "$out/marked.LICENSE"
cp "$work/node_modules/dompurify/LICENSE" "$out/dompurify.LICENSE"
cp "$work/node_modules/dompurify/LICENSE-MPL" "$out/dompurify.LICENSE-MPL"
cat >"$out/README.md" <<MD
# Vendored libraries

Written by \`scripts/vendor-web.sh\` (do not edit by hand): the ES module builds from npm.

| file | package | version | license |
| --- | --- | --- | --- |
| \`marked.esm.js\` | [marked](https://github.com/markedjs/marked) | $MARKED_VERSION | MIT (\`marked.LICENSE\`) |
| \`purify.es.js\` | [dompurify](https://github.com/cure53/DOMPurify) | $DOMPURIFY_VERSION | MPL-2.0 OR Apache-2.0 (\`dompurify.LICENSE\`, \`dompurify.LICENSE-MPL\`) |

The chat page renders model answers with marked and passes the HTML through DOMPurify before it
touches the DOM (\`web/static/js/markdown.js\`).
MD
echo "vendored marked $MARKED_VERSION and DOMPurify $DOMPURIFY_VERSION into $out"
