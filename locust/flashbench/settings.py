"""The scenario's settings, read from the environment so Locust, the harness and the tests agree."""
from dataclasses import dataclass
from typing import Mapping

ARRIVAL_MODES = ("smooth", "burst")


@dataclass(frozen=True)
class ScenarioSettings:
    item_code: str = "1234"
    quantity: int = 1
    requests: int = 100_000
    target_rps: float = 1000.0
    arrivals: str = "smooth"
    users: int = 100
    order_path: str = "/order/stock/limit"
    sold_out_ok: bool = False
    result_file: str = ""
    # the order-apis to spread the users over (ORDER_API_URLS, comma-separated); empty: Locust's --host
    hosts: tuple = ()

    @property
    def per_user_rate(self) -> float:
        """Requests per second each smooth user sends so that all users together reach the target."""
        return self.target_rps / self.users

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> "ScenarioSettings":
        arrivals = env.get("ARRIVALS", "smooth")
        if arrivals not in ARRIVAL_MODES:
            raise ValueError(f"ARRIVALS must be one of {ARRIVAL_MODES}, not {arrivals!r}")
        default_users = 1000 if arrivals == "burst" else 100
        settings = cls(
            item_code=env.get("ITEM_CODE", cls.item_code),
            quantity=int(env.get("QUANTITY", cls.quantity)),
            requests=int(env.get("REQUESTS", cls.requests)),
            target_rps=float(env.get("TARGET_RPS", cls.target_rps)),
            arrivals=arrivals,
            users=int(env.get("USERS", default_users)),
            order_path=env.get("ORDER_PATH", cls.order_path),
            sold_out_ok=env.get("SOLD_OUT_OK", "0") in ("1", "true", "yes"),
            result_file=env.get("RESULT_FILE", ""),
            hosts=tuple(u.strip() for u in env.get("ORDER_API_URLS", "").split(",") if u.strip()),
        )
        if settings.requests <= 0 or settings.target_rps <= 0 or settings.users <= 0 or settings.quantity <= 0:
            raise ValueError("REQUESTS, TARGET_RPS, USERS and QUANTITY must be positive")
        return settings
