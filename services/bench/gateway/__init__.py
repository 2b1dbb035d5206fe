"""``airship bench gateway``: commands per second and command-to-result latency through the gateway's
WebSocket, beside the same load published straight to the command streams, in the same run.

:mod:`services.bench.gateway.run` starts the service processes (the gateway with its rate limits lifted through
its settings: limits, not costs, which the bench would otherwise measure) and drives the runs; the load
comes from separate processes (:mod:`services.bench.gateway.load`).
"""
