"""The behaviour of ResilientLlmProvider, written once and run on every Cache adapter.

``tests/unit/llm/test_resilience.py`` runs :class:`ResilienceCases` on MemoryCache and
``tests/integration/redis/test_resilience_on_redis.py`` on a real Redis; each supplies a
module-level ``cache`` fixture. Time is a :class:`FakeTime` whose ``sleep`` moves its clock,
so no case waits for a window to move. Oracles come from the policies' prose: "at most N
calls in any window of W seconds", "opens after N failures", never from another adapter.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Sequence

import pytest
from pydantic import BaseModel

from redstring.llm.adapters.fake import FakeLlmProvider, Payload
from redstring.llm.resilience import (
    CircuitBreakerPolicy,
    OnLimit,
    RateLimitPolicy,
    ResilientLlmProvider,
    RetryPolicy,
)
from redstring.ports.cache import Cache
from redstring.ports.errors import (
    CircuitOpenError,
    EmptyCompletionError,
    LlmProviderError,
    MalformedCompletionError,
    RateLimitedError,
    RefusedCompletionError,
    TransientLlmError,
)
from redstring.ports.llm_provider import LlmProvider, SchemaT
from redstring.testing.cache import NOW

WINDOW = 10.0
ANSWER: Payload = {"names": ["Ada"]}


class Found(BaseModel):
    names: list[str]


class FakeTime:
    """An epoch clock that only moves when something sleeps on it; records every sleep.

    It also remembers the last reading each task took, because with one clock shared by
    concurrent tasks the time can move between a limiter's reading and the call it admits
    (another task slept meanwhile); the admission instant is that reading.
    """

    def __init__(self, start: float = NOW) -> None:
        self.now = start
        self.sleeps: list[float] = []
        self._last_read: dict[asyncio.Task[object] | None, float] = {}

    def clock(self) -> float:
        self._last_read[asyncio.current_task()] = self.now
        return self.now

    def last_read(self) -> float:
        """The reading the current task took last (``now`` when it never read the clock)."""
        return self._last_read.get(asyncio.current_task(), self.now)

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds
        await asyncio.sleep(0)


class Observed:
    """Delegates to a FakeLlmProvider; records the fake clock at each call and can hold calls.

    The first ``hanging`` calls never answer (until cancelled, e.g. by a timeout); every
    call waits for ``gate`` when one is given, so a test can keep a call in flight.
    """

    def __init__(
        self,
        fake: FakeLlmProvider,
        time: FakeTime,
        *,
        gate: asyncio.Event | None = None,
        hanging: int = 0,
    ) -> None:
        self.fake = fake
        self.time = time
        self.gate = gate
        self.hanging = hanging
        self.called_at: list[float] = []
        self.admitted_at: list[float] = []
        self.entered = asyncio.Event()

    @property
    def model(self) -> str:
        return self.fake.model

    async def extract(
        self, text: str, schema: type[SchemaT], *, system_prompt: str | None = None
    ) -> SchemaT:
        self.called_at.append(self.time.now)
        self.admitted_at.append(self.time.last_read())
        self.entered.set()
        if len(self.called_at) <= self.hanging:
            await asyncio.Event().wait()
        if self.gate is not None:
            await self.gate.wait()
        return await self.fake.extract(text, schema, system_prompt=system_prompt)

    @property
    def call_count(self) -> int:
        return len(self.called_at)


def scripted(
    time: FakeTime, *payloads: Payload, gate: asyncio.Event | None = None, hanging: int = 0
) -> Observed:
    fake = FakeLlmProvider("fake/scripted", script=list(payloads))
    return Observed(fake, time, gate=gate, hanging=hanging)


def answering(time: FakeTime) -> Observed:
    """A provider answering every text containing "text" with :data:`ANSWER`."""
    return Observed(FakeLlmProvider("fake/scripted", by_substring={"text": ANSWER}), time)


def wrap(
    inner: LlmProvider,
    cache: Cache,
    time: FakeTime,
    *,
    scope: str = "scope",
    rate_limit: RateLimitPolicy | None = None,
    circuit_breaker: CircuitBreakerPolicy | None = None,
    retry: RetryPolicy | None = None,
    timeout_seconds: float | None = None,
    random: float = 0.0,
) -> ResilientLlmProvider:
    return ResilientLlmProvider(
        inner,
        cache,
        scope=scope,
        rate_limit=rate_limit,
        circuit_breaker=circuit_breaker,
        retry=retry,
        timeout_seconds=timeout_seconds,
        clock=time.clock,
        sleep=time.sleep,
        random=lambda: random,
    )


def most_in_any_window(instants: Sequence[float], window: float) -> int:
    """The largest number of ``instants`` inside one closed interval of length ``window``."""
    ordered = sorted(instants)
    return max(
        (sum(1 for other in ordered if start <= other <= start + window) for start in ordered),
        default=0,
    )


class YieldingCache:
    """Delegates to a cache, yielding to the event loop before every operation.

    Gives wrappers sharing one loop the interleavings separate processes would have, even on
    a cache whose methods never suspend.
    """

    def __init__(self, inner: Cache) -> None:
        self.inner = inner

    async def get(self, key: str) -> str | None:
        await asyncio.sleep(0)
        return await self.inner.get(key)

    async def set(self, key: str, value: str, *, ttl_seconds: float | None = None) -> None:
        await asyncio.sleep(0)
        await self.inner.set(key, value, ttl_seconds=ttl_seconds)

    async def increment(self, key: str, *, ttl_seconds: float | None = None) -> int:
        await asyncio.sleep(0)
        return await self.inner.increment(key, ttl_seconds=ttl_seconds)

    async def delete(self, key: str) -> None:
        await asyncio.sleep(0)
        await self.inner.delete(key)

    async def record_hit(self, key: str, *, at: float, ttl_seconds: float) -> None:
        await asyncio.sleep(0)
        await self.inner.record_hit(key, at=at, ttl_seconds=ttl_seconds)

    async def count_hits(self, key: str, *, since: float) -> int:
        await asyncio.sleep(0)
        return await self.inner.count_hits(key, since=since)

    async def oldest_hit(self, key: str, *, since: float) -> float | None:
        await asyncio.sleep(0)
        return await self.inner.oldest_hit(key, since=since)

    async def close(self) -> None:
        await self.inner.close()

    async def __aenter__(self) -> YieldingCache:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()


class RacedCache(YieldingCache):
    """A competitor records one hit at ``at`` right after this cache's first window count.

    That is the moment between a caller's pre-check and its own record: the competitor
    takes the last slot the pre-check saw free.
    """

    def __init__(self, inner: Cache, *, at: float) -> None:
        super().__init__(inner)
        self.at = at
        self.raced = False

    async def count_hits(self, key: str, *, since: float) -> int:
        count = await self.inner.count_hits(key, since=since)
        if not self.raced:
            self.raced = True
            await self.inner.record_hit(key, at=self.at, ttl_seconds=2 * WINDOW)
        return count


class ResilienceCases:
    """Every policy of ResilientLlmProvider; a subclass supplies a module-level ``cache``."""

    # --- the wrapper is an LlmProvider ----------------------------------------------------

    async def test_the_wrapper_is_an_llm_provider_with_the_inner_model(self, cache: Cache) -> None:
        """Same ``model`` (provenance names who answered) and a validated answer passed through."""
        time = FakeTime()
        inner = answering(time)
        wrapper = wrap(inner, cache, time)
        assert isinstance(wrapper, LlmProvider)
        assert wrapper.model == "fake/scripted"
        assert await wrapper.extract("some text", Found) == Found(names=["Ada"])

    async def test_blank_text_raises_before_spending_any_budget(self, cache: Cache) -> None:
        """EmptyTextError comes first: no call, no hit, so the whole budget is still there."""
        time = FakeTime()
        inner = answering(time)
        wrapper = wrap(inner, cache, time, rate_limit=RateLimitPolicy(2, WINDOW, OnLimit.RAISE))
        with pytest.raises(ValueError, match="blank"):
            await wrapper.extract("   ", Found)
        await wrapper.extract("text one", Found)
        await wrapper.extract("text two", Found)
        assert inner.call_count == 2

    # --- rate limit -----------------------------------------------------------------------

    async def test_calls_up_to_the_limit_go_straight_through(self, cache: Cache) -> None:
        """N calls in one instant are all admitted without a single sleep."""
        time = FakeTime()
        inner = answering(time)
        wrapper = wrap(inner, cache, time, rate_limit=RateLimitPolicy(3, WINDOW))
        for _ in range(3):
            await wrapper.extract("text", Found)
        assert inner.call_count == 3
        assert time.sleeps == []

    async def test_the_wait_policy_sleeps_until_the_oldest_call_leaves_the_window(
        self, cache: Cache
    ) -> None:
        """Call N+1 waits exactly until call 1 is more than one window old, then goes ahead."""
        time = FakeTime()
        inner = answering(time)
        wrapper = wrap(inner, cache, time, rate_limit=RateLimitPolicy(2, WINDOW))
        await wrapper.extract("text", Found)
        time.now += 6
        await wrapper.extract("text", Found)
        time.now += 2
        await wrapper.extract("text", Found)
        assert inner.called_at[:2] == [NOW, NOW + 6]
        assert NOW + WINDOW < inner.called_at[2] <= NOW + WINDOW + 0.02
        assert time.sleeps == [pytest.approx(2.001)]

    async def test_the_raise_policy_raises_rate_limited_without_calling_the_model(
        self, cache: Cache
    ) -> None:
        """With OnLimit.RAISE, call N+1 in the window is a RateLimitedError naming the limit."""
        time = FakeTime()
        inner = answering(time)
        wrapper = wrap(inner, cache, time, rate_limit=RateLimitPolicy(2, WINDOW, OnLimit.RAISE))
        await wrapper.extract("text", Found)
        await wrapper.extract("text", Found)
        with pytest.raises(RateLimitedError, match=r"2 calls per 10 s.*frees in 10\.000 s"):
            await wrapper.extract("text", Found)
        assert inner.call_count == 2
        assert time.sleeps == []

    async def test_a_call_is_admitted_again_once_the_window_has_moved(self, cache: Cache) -> None:
        """The window slides: a call just over one window after the oldest is admitted."""
        time = FakeTime()
        inner = answering(time)
        wrapper = wrap(inner, cache, time, rate_limit=RateLimitPolicy(1, WINDOW, OnLimit.RAISE))
        await wrapper.extract("text", Found)
        time.now = NOW + WINDOW
        with pytest.raises(RateLimitedError):
            await wrapper.extract("text", Found)
        time.now = NOW + WINDOW + 0.01
        await wrapper.extract("text", Found)
        assert inner.called_at == [NOW, NOW + WINDOW + 0.01]

    async def test_wrappers_sharing_a_cache_and_scope_share_one_budget(self, cache: Cache) -> None:
        """Two wrappers (two workers) on one cache and scope: N calls between them, not 2N."""
        time = FakeTime()
        first_inner, second_inner = answering(time), answering(time)
        policy = RateLimitPolicy(3, WINDOW, OnLimit.RAISE)
        first = wrap(first_inner, cache, time, rate_limit=policy)
        second = wrap(second_inner, cache, time, rate_limit=policy)
        await first.extract("text", Found)
        await second.extract("text", Found)
        await first.extract("text", Found)
        with pytest.raises(RateLimitedError):
            await second.extract("text", Found)
        assert first_inner.call_count + second_inner.call_count == 3

    async def test_different_scopes_have_separate_budgets(self, cache: Cache) -> None:
        """A scope is a budget: spending one leaves another untouched."""
        time = FakeTime()
        policy = RateLimitPolicy(1, WINDOW, OnLimit.RAISE)
        first = wrap(answering(time), cache, time, scope="model-a", rate_limit=policy)
        second = wrap(answering(time), cache, time, scope="model-b", rate_limit=policy)
        await first.extract("text", Found)
        await second.extract("text", Found)
        with pytest.raises(RateLimitedError):
            await first.extract("text", Found)

    async def test_a_call_that_loses_the_race_for_the_last_slot_is_not_admitted(
        self, cache: Cache
    ) -> None:
        """Another worker takes the last slot between our check and our record: we are refused.

        Counting before recording would admit both, putting N+1 calls in the window.
        """
        time = FakeTime()
        inner = answering(time)
        policy = RateLimitPolicy(2, WINDOW, OnLimit.RAISE)
        warm_up = wrap(answering(time), cache, time, rate_limit=policy)
        await warm_up.extract("text", Found)
        raced = wrap(inner, RacedCache(cache, at=NOW), time, rate_limit=policy)
        with pytest.raises(RateLimitedError):
            await raced.extract("text", Found)
        assert inner.call_count == 0

    async def test_concurrent_workers_never_exceed_the_limit_and_all_finish(
        self, cache: Cache
    ) -> None:
        """Six workers for a limit of four, interleaved at every cache operation: no window of
        W ever holds more than N admissions, and waiting (not refusing) gets every call through.

        The guarantee is on admission instants (the limiter's clock reading), which is what
        is checked: the shared fake clock may move on before the admitted call starts.
        """
        time = FakeTime()
        limit = RateLimitPolicy(4, WINDOW)
        inners = [answering(time) for _ in range(6)]
        shared = YieldingCache(cache)
        workers = [wrap(inner, shared, time, rate_limit=limit, random=0.5) for inner in inners]

        async def work(worker: ResilientLlmProvider) -> None:
            for _ in range(4):
                await worker.extract("text", Found)

        await asyncio.gather(*(work(worker) for worker in workers))
        instants = list(itertools.chain.from_iterable(inner.admitted_at for inner in inners))
        assert len(instants) == 24
        assert most_in_any_window(instants, WINDOW) <= 4

    # --- circuit breaker ------------------------------------------------------------------

    async def test_the_circuit_opens_after_n_transient_failures_and_fails_fast(
        self, cache: Cache
    ) -> None:
        """Three failures within the window open it; the fourth call never reaches the model."""
        time = FakeTime()
        inner = scripted(time, *[TransientLlmError] * 3)
        breaker = CircuitBreakerPolicy(failures=3, within_seconds=WINDOW, cooldown_seconds=30)
        wrapper = wrap(inner, cache, time, circuit_breaker=breaker)
        for _ in range(3):
            time.now += 1
            with pytest.raises(TransientLlmError):
                await wrapper.extract("text", Found)
        with pytest.raises(CircuitOpenError, match=r"open after 3 transient failures.*30\.000 s"):
            await wrapper.extract("text", Found)
        assert inner.call_count == 3

    async def test_failures_in_different_windows_do_not_add_up(self, cache: Cache) -> None:
        """Two failures per window, window after window, never reach a threshold of three."""
        time = FakeTime()
        inner = scripted(time, *[TransientLlmError] * 6, ANSWER)
        breaker = CircuitBreakerPolicy(failures=3, within_seconds=WINDOW, cooldown_seconds=30)
        wrapper = wrap(inner, cache, time, circuit_breaker=breaker)
        for window in range(3):
            for offset in (1.0, 2.0):
                time.now = NOW + window * WINDOW + offset
                with pytest.raises(TransientLlmError):
                    await wrapper.extract("text", Found)
        assert await wrapper.extract("text", Found) == Found(names=["Ada"])

    @pytest.mark.parametrize(
        "error", [RefusedCompletionError, EmptyCompletionError, MalformedCompletionError]
    )
    async def test_an_answer_that_is_not_usable_is_not_a_failure_of_the_model(
        self, cache: Cache, error: type[LlmProviderError]
    ) -> None:
        """A refusal or a bad answer proves the model is up: it never opens the circuit."""
        time = FakeTime()
        inner = scripted(time, error, error, error, ANSWER)
        breaker = CircuitBreakerPolicy(failures=2, within_seconds=WINDOW, cooldown_seconds=30)
        wrapper = wrap(inner, cache, time, circuit_breaker=breaker)
        for _ in range(3):
            with pytest.raises(error):
                await wrapper.extract("text", Found)
        assert await wrapper.extract("text", Found) == Found(names=["Ada"])

    async def test_an_open_circuit_is_shared_by_every_wrapper_on_the_cache(
        self, cache: Cache
    ) -> None:
        """One worker's failures open the circuit for another worker that has not failed."""
        time = FakeTime()
        failing = scripted(time, TransientLlmError, TransientLlmError)
        healthy = answering(time)
        breaker = CircuitBreakerPolicy(failures=2, within_seconds=WINDOW, cooldown_seconds=30)
        first = wrap(failing, cache, time, circuit_breaker=breaker)
        second = wrap(healthy, cache, time, circuit_breaker=breaker)
        for _ in range(2):
            with pytest.raises(TransientLlmError):
                await first.extract("text", Found)
        with pytest.raises(CircuitOpenError):
            await second.extract("text", Found)
        assert healthy.call_count == 0

    async def test_after_the_cool_down_exactly_one_probe_goes_through(self, cache: Cache) -> None:
        """While the probe is in flight every other call still fails fast; its success closes."""
        time = FakeTime()
        gate = asyncio.Event()
        breaker = CircuitBreakerPolicy(failures=1, within_seconds=WINDOW, cooldown_seconds=30)
        await self._open_circuit(cache, time, breaker)
        probe_inner = scripted(time, ANSWER, gate=gate)
        other_inner = answering(time)
        prober = wrap(probe_inner, cache, time, circuit_breaker=breaker)
        other = wrap(other_inner, cache, time, circuit_breaker=breaker)
        time.now += 30
        probe = asyncio.create_task(prober.extract("text", Found))
        await probe_inner.entered.wait()
        with pytest.raises(CircuitOpenError, match="another call is probing"):
            await other.extract("text", Found)
        gate.set()
        assert await probe == Found(names=["Ada"])
        assert await other.extract("text", Found) == Found(names=["Ada"])
        assert other_inner.call_count == 1

    async def test_a_failed_probe_reopens_the_circuit_for_another_cool_down(
        self, cache: Cache
    ) -> None:
        """The probe's transient failure starts a new cool-down; the next probe comes after it."""
        time = FakeTime()
        breaker = CircuitBreakerPolicy(failures=1, within_seconds=WINDOW, cooldown_seconds=30)
        await self._open_circuit(cache, time, breaker)
        inner = scripted(time, TransientLlmError, ANSWER)
        wrapper = wrap(inner, cache, time, circuit_breaker=breaker)
        time.now += 30
        with pytest.raises(TransientLlmError):
            await wrapper.extract("text", Found)
        time.now += 29
        with pytest.raises(CircuitOpenError, match=r"another 1\.000 s"):
            await wrapper.extract("text", Found)
        time.now += 1
        assert await wrapper.extract("text", Found) == Found(names=["Ada"])
        assert inner.call_count == 2

    async def test_a_successful_probe_resets_the_failure_count(self, cache: Cache) -> None:
        """After closing, it takes a full N fresh failures to open again, not one."""
        time = FakeTime()
        breaker = CircuitBreakerPolicy(failures=2, within_seconds=WINDOW, cooldown_seconds=1)
        await self._open_circuit(cache, time, breaker)
        inner = scripted(time, ANSWER, TransientLlmError, ANSWER)
        wrapper = wrap(inner, cache, time, circuit_breaker=breaker)
        time.now += 1
        await wrapper.extract("text", Found)
        with pytest.raises(TransientLlmError):
            await wrapper.extract("text", Found)
        assert await wrapper.extract("text", Found) == Found(names=["Ada"])

    async def test_a_probe_refused_by_the_rate_limit_is_handed_back(self, cache: Cache) -> None:
        """A probe that never reached the model frees the lease: the next call may probe."""
        time = FakeTime()
        breaker = CircuitBreakerPolicy(failures=1, within_seconds=WINDOW, cooldown_seconds=1)
        limit = RateLimitPolicy(1, WINDOW, OnLimit.RAISE)
        inner = scripted(time, TransientLlmError, ANSWER)
        wrapper = wrap(inner, cache, time, rate_limit=limit, circuit_breaker=breaker)
        with pytest.raises(TransientLlmError):
            await wrapper.extract("text", Found)
        time.now += 1
        with pytest.raises(RateLimitedError):
            await wrapper.extract("text", Found)
        time.now += WINDOW
        assert await wrapper.extract("text", Found) == Found(names=["Ada"])

    async def _open_circuit(
        self, cache: Cache, time: FakeTime, breaker: CircuitBreakerPolicy
    ) -> None:
        failing = scripted(time, *[TransientLlmError] * breaker.failures)
        opener = wrap(failing, cache, time, circuit_breaker=breaker)
        for _ in range(breaker.failures):
            with pytest.raises(TransientLlmError):
                await opener.extract("text", Found)
        with pytest.raises(CircuitOpenError):
            await opener.extract("text", Found)

    # --- retries and timeout --------------------------------------------------------------

    async def test_a_transient_failure_is_retried_with_exponential_backoff(
        self, cache: Cache
    ) -> None:
        """Two failures then an answer: the answer comes back after waits of 0.5 s and 1 s."""
        time = FakeTime()
        inner = scripted(time, TransientLlmError, TransientLlmError, ANSWER)
        retry = RetryPolicy(attempts=3, base_delay_seconds=1.0, max_delay_seconds=60)
        wrapper = wrap(inner, cache, time, retry=retry, random=0.5)
        assert await wrapper.extract("text", Found) == Found(names=["Ada"])
        assert time.sleeps == [0.5, 1.0]
        assert inner.call_count == 3

    async def test_the_last_transient_failure_is_raised_when_attempts_run_out(
        self, cache: Cache
    ) -> None:
        """The caller gets the model's own last error, noting how many attempts were made."""
        time = FakeTime()
        last = TransientLlmError("503 from the server")
        inner = scripted(time, TransientLlmError, TransientLlmError, last)
        wrapper = wrap(inner, cache, time, retry=RetryPolicy(attempts=3), random=0.0)
        with pytest.raises(TransientLlmError, match="503 from the server") as raised:
            await wrapper.extract("text", Found)
        assert raised.value is last
        assert "gave up after 3 attempts" in (raised.value.__notes__ or [])
        assert inner.call_count == 3

    @pytest.mark.parametrize(
        "error", [RefusedCompletionError, EmptyCompletionError, MalformedCompletionError]
    )
    async def test_a_failure_that_is_not_transient_is_never_retried(
        self, cache: Cache, error: type[LlmProviderError]
    ) -> None:
        """Asking again would spend tokens on the same refusal or the same bad answer."""
        time = FakeTime()
        inner = scripted(time, error, ANSWER)
        wrapper = wrap(inner, cache, time, retry=RetryPolicy(attempts=5))
        with pytest.raises(error):
            await wrapper.extract("text", Found)
        assert inner.call_count == 1
        assert time.sleeps == []

    async def test_a_call_past_its_timeout_is_a_transient_failure_and_is_retried(
        self, cache: Cache
    ) -> None:
        """A hanging call becomes TransientLlmError naming the timeout, and the retry answers."""
        time = FakeTime()
        hanging = scripted(time, hanging=1)
        wrapper = wrap(hanging, cache, time, timeout_seconds=0.02)
        with pytest.raises(TransientLlmError, match=r"did not answer within 0\.02 s"):
            await wrapper.extract("text", Found)
        inner = scripted(time, ANSWER, hanging=1)
        retrying = wrap(inner, cache, time, timeout_seconds=0.02, retry=RetryPolicy(attempts=2))
        assert await retrying.extract("text", Found) == Found(names=["Ada"])
        assert inner.call_count == 2

    async def test_every_retry_passes_the_rate_limit_again(self, cache: Cache) -> None:
        """A retry is a real call: two failed attempts spend a budget of two."""
        time = FakeTime()
        inner = scripted(time, TransientLlmError, TransientLlmError, ANSWER)
        limit = RateLimitPolicy(2, WINDOW, OnLimit.RAISE)
        wrapper = wrap(inner, cache, time, rate_limit=limit, retry=RetryPolicy(attempts=3))
        with pytest.raises(RateLimitedError):
            await wrapper.extract("text", Found)
        assert inner.call_count == 2

    async def test_retries_stop_when_the_circuit_opens(self, cache: Cache) -> None:
        """Failures during retries count; once the circuit opens the next attempt fails fast."""
        time = FakeTime()
        inner = scripted(time, TransientLlmError, TransientLlmError, ANSWER)
        breaker = CircuitBreakerPolicy(failures=2, within_seconds=WINDOW, cooldown_seconds=30)
        wrapper = wrap(inner, cache, time, circuit_breaker=breaker, retry=RetryPolicy(attempts=5))
        with pytest.raises(CircuitOpenError):
            await wrapper.extract("text", Found)
        assert inner.call_count == 2
