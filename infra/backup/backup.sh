#!/usr/bin/env bash
# Back up airship: a consistent snapshot of Redis (an RDB taken over the replication protocol, as admin, while
# it runs: no copy of a file being written) and the archive directory. docs/runbooks/backup-restore.md.
#
#   REDIS_URL=redis://admin:…@redis:6379 ARCHIVE_DIR=/var/lib/airship/archive infra/backup/backup.sh /backups/2026-12-06
#
# Writes <dest>/dump.rdb, <dest>/archive.tar (when ARCHIVE_DIR is set) and <dest>/manifest.txt (what, when, sizes).
set -euo pipefail
dest="${1:?usage: backup.sh DEST_DIR}"
: "${REDIS_URL:?REDIS_URL: the URL of the admin user}"
cli="${REDIS_CLI:-redis-cli}"
mkdir -p "$dest"
"$cli" -u "$REDIS_URL" --no-auth-warning --rdb "$dest/dump.rdb.tmp" >&2
mv "$dest/dump.rdb.tmp" "$dest/dump.rdb"
if [ -n "${ARCHIVE_DIR:-}" ]; then
  tar -C "$ARCHIVE_DIR" -cf "$dest/archive.tar.tmp" .
  mv "$dest/archive.tar.tmp" "$dest/archive.tar"
fi
{
  echo "taken: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "redis: $("$cli" -u "$REDIS_URL" --no-auth-warning INFO server | grep -m1 '^redis_version' | tr -d '\r')"
  echo "keys: $("$cli" -u "$REDIS_URL" --no-auth-warning DBSIZE | tr -d '\r')"
  ls -l "$dest"
} > "$dest/manifest.txt"
echo "$dest"
