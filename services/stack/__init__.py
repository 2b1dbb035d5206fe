"""The stack harness: the services of ``docker-compose.yml`` as plain OS processes on this host, no containers.

``airship stack up`` reads the compose file (never a copy of it), starts a real ``redis-server`` with the shipped
``infra/redis/redis.conf`` and ``users.acl``, then every service of the airship image (worker x replicas,
projector, gateway, bots, ...) with exactly the command, user, password and environment the compose file gives
it. Only what a host run must change is changed, and each change is recorded in the state file (``airship stack
status -v`` shows them):

- host names: ``<service>:<container port>`` -> ``127.0.0.1:<host port>`` (``redis:6379``, ``gateway:8000``);
- published ports: the container port in the service's own command and health check -> its host port, and the
  listen address ``0.0.0.0`` -> the address compose publishes on (``127.0.0.1``);
- port variables (``*_PORT`` with a non-zero value, e.g. ``AIRSHIP_METRICS_PORT``, ``AIRSHIP_HEALTH_PORT``): a
  free port of its own for each process, since the replicas share one network namespace here;
- container paths in commands, health checks and variables whose whole value is a path under a mount: bind
  mounts -> the repository's files, named volumes -> ``<dir>/volumes/<name>`` (shared, like a volume), tmpfs ->
  ``<dir>/tmp/<process>`` (each process's own ``/tmp``, also its working directory); Redis reads a copy of the
  shipped redis.conf made at each start with only its path directives (``dir``, ``aclfile``) mapped, since it
  acts on ``dir`` while reading the file, and gets ``--port`` and ``--bind 127.0.0.1`` on its command line;
- ``redis-cli`` in Redis's health check gets ``-h 127.0.0.1 -p <port>`` (its defaults were the container's);
- ``airship ...`` -> ``<this python> -m services.cli ...`` (a shim on PATH does it inside ``sh -c`` scripts),
  ``python`` in health checks -> this interpreter.

Modules: :mod:`.compose` (reading the file), :mod:`.plan` (the processes and the rewrites), :mod:`.run`
(starting, probing and stopping them; the state directory); ``airship stack`` itself is
:mod:`services.cli.stack`.
"""
