#!/usr/bin/env bash
# Restore a backup of infra/backup/backup.sh into an empty Redis data directory (and an archive directory), so
# that a Redis started on it with the shipped redis.conf (AOF on) has exactly the backed-up data.
# docs/runbooks/backup-restore.md. Every airship process must be stopped, and Redis too.
#
#   infra/backup/restore.sh /backups/2026-12-06 /data [/var/lib/airship/archive]
#
# Redis with AOF on loads the AOF, not dump.rdb: so the RDB is loaded once with AOF off, Redis writes a new AOF
# from it (CONFIG SET appendonly yes) and is shut down; the shipped config then finds that AOF.
set -euo pipefail
src="${1:?usage: restore.sh BACKUP_DIR REDIS_DATA_DIR [ARCHIVE_DIR]}"
data="${2:?usage: restore.sh BACKUP_DIR REDIS_DATA_DIR [ARCHIVE_DIR]}"
archive="${3:-}"
server="${REDIS_SERVER:-redis-server}"
cli="${REDIS_CLI:-redis-cli}"
mkdir -p "$data"
if [ -e "$data/appendonlydir" ] || [ -e "$data/dump.rdb" ]; then
  echo "restore: $data is not empty (move its appendonlydir/ and dump.rdb aside first)" >&2; exit 1
fi
cp "$src/dump.rdb" "$data/dump.rdb"
sock="$data/restore.sock"
"$server" --port 0 --unixsocket "$sock" --dir "$data" --dbfilename dump.rdb --appendonly no --save "" \
  --daemonize yes --logfile "$data/restore.log" --pidfile "$data/restore.pid"
for _ in $(seq 600); do "$cli" -s "$sock" PING 2>/dev/null | grep -q PONG && break; sleep 0.1; done
"$cli" -s "$sock" CONFIG SET appendonly yes >/dev/null
for _ in $(seq 600); do
  info="$("$cli" -s "$sock" INFO persistence)"
  if echo "$info" | grep -q '^aof_rewrite_in_progress:0' && echo "$info" | grep -q '^aof_rewrite_scheduled:0' \
     && [ -d "$data/appendonlydir" ]; then break; fi
  sleep 0.1
done
echo "$info" | grep -q '^aof_last_bgrewrite_status:ok' || { echo "restore: the AOF rewrite failed" >&2; exit 1; }
keys="$("$cli" -s "$sock" DBSIZE)"
"$cli" -s "$sock" SHUTDOWN NOSAVE >/dev/null 2>&1 || true
for _ in $(seq 100); do [ -e "$data/restore.pid" ] || break; sleep 0.1; done
rm -f "$data/dump.rdb" "$data/restore.sock"
if [ -n "$archive" ] && [ -e "$src/archive.tar" ]; then
  mkdir -p "$archive"
  tar -C "$archive" -xf "$src/archive.tar"
fi
echo "restored $keys keys into $data${archive:+ and the archive into $archive}"
