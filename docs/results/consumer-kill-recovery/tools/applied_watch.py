"""Prints, with wall-clock times, when stock-consumer's readiness changes and when the fault item's eventsApplied
changes; the item name is read from the faults console log."""
import datetime, json, re, sys, time, urllib.request

port, console, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
end = time.time() + seconds
item = None
last = None
def get(url):
    try:
        with urllib.request.urlopen(url, timeout=2) as r:
            return r.status, r.read()
    except Exception as e:
        return getattr(e, "code", -1), b""
while time.time() < end:
    if item is None:
        m = re.search(r"on (fault-consumer-kill-\w+)", open(console).read())
        item = m.group(1) if m else None
    ready = get(f"http://127.0.0.1:{port}/actuator/health/readiness")[0]
    applied = None
    if item and ready == 200:
        status, body = get(f"http://127.0.0.1:{port}/stock/items/{item}")
        applied = json.loads(body).get("eventsApplied") if status == 200 else None
    batches = None
    if ready == 200:
        status, body = get(f"http://127.0.0.1:{port}/actuator/metrics/flashstock.consumer.batch.duration")
        if status == 200:
            m = {x["statistic"]: x["value"] for x in json.loads(body)["measurements"]}
            batches = (int(m.get("COUNT", 0)), round(m.get("TOTAL_TIME", 0), 3))
    now = (ready, applied)
    if now != last:
        print(datetime.datetime.now().strftime("%H:%M:%S.%f")[:-3], "ready" if ready == 200 else f"down({ready})",
              applied, "batches(count,total_s)=", batches, flush=True)
        last = now
    time.sleep(0.2)
