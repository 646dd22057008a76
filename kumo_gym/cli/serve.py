"""``kumo-gym serve ENV --port 8000``: an environment as an OpenEnv HTTP server
(:mod:`kumo_gym.integrations.openenv`)."""
from __future__ import annotations

from ..core.registry import resolve_env_id
from .args import add_env_args, env_kwargs, positive_int


def cmd_serve(args, extra) -> int:
    from ..integrations.openenv import serve

    kw = env_kwargs(args, extra)
    serve(resolve_env_id(args.env), kw, host=args.host, port=args.port, max_sessions=args.max_sessions)
    return 0


def register(sub) -> None:
    p = sub.add_parser("serve", help="serve an environment over OpenEnv's HTTP/WebSocket API",
                       description="Serve ENV with openenv-core (pip install 'kumo-gym[openenv]'): one environment "
                                   "per WebSocket session; reset by seed or by instance. See docs/integrations.md.")
    add_env_args(p, seed=False)  # each client seeds its own reset
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1; 0.0.0.0 for all)")
    p.add_argument("--port", type=positive_int, default=8000)
    p.add_argument("--max-sessions", type=positive_int, default=16, help="concurrent sessions (default 16)")
    p.set_defaults(func=cmd_serve, takes_extra=True)
