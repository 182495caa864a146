"""The stock database's view of an item, as the stock-consumers serve it, and a stock reset that waits for it."""
import requests

from flashbench import admin, stack
from flashbench.polling import wait_until


def stock_item(item: str) -> dict:
    """The stock database's row of the item, from the first stock-consumer that answers; {} if none has it."""
    for url in stack.consumer_urls():
        try:
            r = requests.get(f"{url}/stock/items/{item}", timeout=5)
        except requests.RequestException:
            continue
        return r.json() if r.status_code == 200 else {}
    return {}


def reset_stock(item: str, stock: int, gate: str = "redis") -> None:
    """A new generation of the item (admin.reset_stock), then the stock database's copy of it."""
    admin.reset_stock(item, stock, gate=gate)
    # the stock database follows the reset through Kafka; wait for it so the run starts from a known state
    wait_until(lambda: stock_item(item).get("baseline") == stock and stock_item(item).get("eventsApplied") == 0,
               30, f"stock-consumer to apply the reset of {item}")
