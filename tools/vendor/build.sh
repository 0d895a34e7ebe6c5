#!/bin/sh
# Builds service/static/vendor/intl-messageformat.js, the one ES module file the page imports,
# from the exact versions package-lock.json pins (`make vendor`; README.md beside the output
# says what it is). Needs node and npm; nothing else in the project does.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out="$here/../../service/static/vendor"
cd "$here"
# --ignore-scripts: esbuild's own postinstall only checks its binary, which the next line runs.
npm ci --ignore-scripts --no-audit --no-fund
version=$(node -p 'require("./node_modules/intl-messageformat/package.json").version')
npx --no-install esbuild entry.js --bundle --format=esm --minify --target=es2022 \
  --legal-comments=none \
  --banner:js="/*! intl-messageformat $version (FormatJS), bundled with its dependencies by tools/vendor/build.sh. Licences: intl-messageformat.LICENSE.md */" \
  --outfile="$out/intl-messageformat.js"
{
  for package in intl-messageformat @formatjs/icu-messageformat-parser @formatjs/icu-skeleton-parser @formatjs/fast-memoize; do
    printf '# %s %s\n\n' "$package" "$(node -p "require('./node_modules/$package/package.json').version")"
    cat "node_modules/$package/LICENSE.md"
    printf '\n\n'
  done
} > "$out/intl-messageformat.LICENSE.md"
sha256sum "$out/intl-messageformat.js"
