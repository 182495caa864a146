import pytest

from flashbench.settings import ScenarioSettings


def test_defaults_are_the_seed_scenario():
    s = ScenarioSettings.from_env({})
    assert (s.item_code, s.requests, s.target_rps, s.arrivals, s.users) == ("1234", 100_000, 1000.0, "smooth", 100)
    assert s.per_user_rate == pytest.approx(10.0)


def test_burst_defaults_to_a_thousand_lockstep_users():
    s = ScenarioSettings.from_env({"ARRIVALS": "burst"})
    assert s.users == 1000


def test_rejects_unknown_arrival_mode_and_non_positive_numbers():
    with pytest.raises(ValueError):
        ScenarioSettings.from_env({"ARRIVALS": "poisson"})
    with pytest.raises(ValueError):
        ScenarioSettings.from_env({"REQUESTS": "0"})
    with pytest.raises(ValueError):
        ScenarioSettings.from_env({"QUANTITY": "-1"})


def test_sold_out_ok_flag():
    assert ScenarioSettings.from_env({"SOLD_OUT_OK": "1"}).sold_out_ok
    assert not ScenarioSettings.from_env({}).sold_out_ok


def test_the_users_spread_over_the_order_apis_given():
    assert ScenarioSettings.from_env({}).hosts == ()
    s = ScenarioSettings.from_env({"ORDER_API_URLS": "http://127.0.0.1:8080, http://127.0.0.1:8090,"})
    assert s.hosts == ("http://127.0.0.1:8080", "http://127.0.0.1:8090")
