"""What a benchmark run is asked to do: the load, the item, the topology, and the services' settings."""
from dataclasses import dataclass, field
from pathlib import Path

# the order endpoint of each gate the bench can measure
ORDER_PATHS = {"redis": "/order/stock/limit", "db-lock": "/order/stock/limit/db-lock"}


@dataclass
class ServiceSettings:
    """What a tuning experiment varies; None leaves the service's own default."""
    tomcat_threads: int | None = None
    hikari_pool: int | None = None
    warmup_requests: int | None = None
    virtual_threads: bool | None = None
    lock_mode: str | None = None
    extra_env: dict = field(default_factory=dict)

    def env(self) -> dict:
        env = dict(self.extra_env)
        if self.tomcat_threads is not None:
            env["SERVER_TOMCAT_THREADS_MAX"] = str(self.tomcat_threads)
        if self.hikari_pool is not None:
            env["SPRING_DATASOURCE_HIKARI_MAXIMUM_POOL_SIZE"] = str(self.hikari_pool)
        if self.warmup_requests is not None:
            env["FLASHSTOCK_WARMUP_ENABLED"] = "true" if self.warmup_requests > 0 else "false"
            env["FLASHSTOCK_WARMUP_REQUESTS"] = str(self.warmup_requests)
        if self.virtual_threads is not None:
            env["SPRING_THREADS_VIRTUAL_ENABLED"] = "true" if self.virtual_threads else "false"
        if self.lock_mode is not None:
            env["FLASHSTOCK_LOCK_MODE"] = self.lock_mode
        return env


@dataclass
class RunOptions:
    name: str = "seed"
    requests: int = 100_000
    rps: float = 1000.0
    arrivals: str = "smooth"
    users: int | None = None
    item: str = "1234"
    topology: str = "single"
    stock: int = 1_000_000
    quantity: int = 1
    gate: str = "redis"
    build: bool = True
    restart: bool = True
    drain_timeout_s: float = 120.0
    pipeline_warmup: int = 30_000
    min_rate: float = 0.99
    out: Path | None = None
    settings: ServiceSettings = field(default_factory=ServiceSettings)
    command: str = "scripts/bench"
