"""Clients of the gateway (docs/gateway.md): :class:`GatewayClient` (synchronous) and
:class:`AsyncGatewayClient` (asyncio, with WebSocket subscriptions), and their errors."""

from services.client.aio import AsyncGatewayClient
from services.client.errors import (
    BadRequest,
    ClientError,
    Conflict,
    Forbidden,
    GatewayError,
    InvalidOptions,
    NotFound,
    RateLimited,
    Timeout,
    TooLarge,
    Unauthorized,
    Unavailable,
)
from services.client.http import GatewayClient

__all__ = ["AsyncGatewayClient", "BadRequest", "ClientError", "Conflict", "Forbidden", "GatewayClient",
           "GatewayError", "InvalidOptions", "NotFound", "RateLimited", "Timeout", "TooLarge", "Unauthorized",
           "Unavailable"]
