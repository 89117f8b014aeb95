package narwhal.core.metrics;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.Metric;
import com.codahale.metrics.MetricRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import narwhal.config.SloConfig;
import narwhal.core.admission.Admission;
import narwhal.core.fleet.EngineCondition;
import narwhal.core.fleet.EngineState;
import narwhal.core.fleet.Fleet;
import narwhal.core.journal.JournalDropReason;
import narwhal.core.journal.JsonlJournal;
import narwhal.core.outcome.RequestOutcome;
import narwhal.core.retry.RetryBudget;
import narwhal.api.FailureClass;
import narwhal.api.FrontEndMetrics;
import narwhal.spi.Phase;
import org.jspecify.annotations.Nullable;

/**
 * The router's metrics, all {@code narwhal_}-prefixed, on an injected Dropwizard registry (no
 * static state: two routers in one JVM keep separate counts).
 *
 * <p>Outcome counters and latency histograms are fed from one {@link RequestOutcome} per request
 * ({@link #record}); {@code offered} counts arrivals ({@link #offered}), so once nothing is in
 * flight it equals the sum of the outcome counters. Gauges read live state (admission, the retry
 * budget, each engine) at scrape time. The family catalogue ({@link #family}) carries each
 * family's type and help text for exporters. See docs/journal-and-metrics.md for the list.
 *
 * <p>Front-ends see it as a {@link FrontEndMetrics}: they register their connections' series and
 * serve {@link #scrape()}, the registry in the Prometheus text format ({@link PrometheusExposition}).
 */
public final class RouterMetrics implements FrontEndMetrics {

  /** Latency buckets as multiples of the SLO target, as the reference router uses. */
  static final double[] SLO_FACTORS = {0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10};
  /** Router overhead is sub-millisecond when healthy; buckets from 100 µs to 1 s. */
  static final double[] OVERHEAD_BOUNDS_S = {
      0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1};

  private final MetricRegistry registry;
  private final Map<String, MetricFamily> families = new ConcurrentHashMap<>();
  private final Counter offered;
  private final Counter served;
  private final Counter cancelled;
  private final Counter invalid;
  private final Counter retries;
  private final BucketedHistogram ttft;
  private final BucketedHistogram firstByte;
  private final BucketedHistogram tpot;
  private final BucketedHistogram overhead;
  private final EngineSeries engines = new EngineSeries();
  private final PrometheusExposition exposition = new PrometheusExposition(this);

  private static final String EVENTS_HELP =
      "Breaker decisions: engine_held, engine_ejected, probe, readmitted, hold_skipped, wave_hold, wave_release.";
  private static final String PROBES_HELP =
      "Breaker probes by kind (health, liveness, inference, lifecycle) and outcome.";

  public RouterMetrics(MetricRegistry registry, SloConfig slo) {
    this.registry = registry;
    offered = counter("narwhal_offered_total", "Requests that arrived at a completion route.");
    served = counter("narwhal_served_total", "Requests completed: every token relayed and [DONE] reached.");
    cancelled = counter("narwhal_cancelled_total", "Requests whose client went away before the end.");
    invalid = counter("narwhal_invalid_requests_total",
        "Requests refused for their input before admission (400, 404, 413).");
    retries = counter("narwhal_retries_total", "Fresh prefill/decode attempts after a transient failure.");
    describe("narwhal_failed_total", MetricFamily.Type.COUNTER,
        "Requests that failed, by journal reason and the engine whose failure started it (iid none: no engine's).");
    describe("narwhal_refused_total", MetricFamily.Type.COUNTER, "Requests refused by predictive admission, by cause.");
    describe("narwhal_rejected_total", MetricFamily.Type.COUNTER,
        "Requests rejected at admission (429 in-flight limit, 503 draining), by reason.");
    describe("narwhal_expired_total", MetricFamily.Type.COUNTER,
        "Requests that ran out of time (deadline, queue timeout, KV handoff bound), by reason.");
    describe("narwhal_auth_failures_total", MetricFamily.Type.COUNTER,
        "Callers refused by client authentication: missing or unknown key (401), a tenant not allowed the model"
            + " (403), an operator route without an operator key (401); by reason.");
    describe("narwhal_tenant_requests_total", MetricFamily.Type.COUNTER,
        "Requests of each tenant (its configured name) by journal terminal; only with a tenants section.");
    describe("narwhal_unserved_total", MetricFamily.Type.COUNTER,
        "Requests placed on an engine projected to miss the SLO because no engine would meet it, by phase.");
    describe("narwhal_tokenize_fallbacks_total", MetricFamily.Type.COUNTER,
        "Prompts estimated from engine.chars_per_token because the engine's tokenize route could not count"
            + " them: unsupported, timeout, error, backoff.");
    // Every documented label value at zero from the start (see LabelValues for why).
    LabelValues.REFUSED_CAUSES.forEach(c -> labelled("narwhal_refused_total", "cause", c));
    LabelValues.AUTH_FAILURE_REASONS.forEach(r -> labelled("narwhal_auth_failures_total", "reason", r));
    LabelValues.UNSERVED_PHASES.forEach(p -> labelled("narwhal_unserved_total", "phase", p));
    LabelValues.TOKENIZE_FALLBACK_CAUSES.forEach(c -> labelled("narwhal_tokenize_fallbacks_total", "cause", c));
    LabelValues.REJECTED_REASONS.forEach(r -> labelled("narwhal_rejected_total", "reason", r));
    LabelValues.EXPIRED_REASONS.forEach(r -> labelled("narwhal_expired_total", "reason", r));
    failedSeries(LabelValues.NO_ENGINE);
    for (String probe : LabelValues.PROBES) {
      for (String outcome : LabelValues.PROBE_OUTCOMES) {
        counter("narwhal_probes_total", PROBES_HELP, "probe", probe, "outcome", outcome);
      }
    }
    LabelValues.FLEET_EVENTS.forEach(event -> counter("narwhal_engine_events_total", EVENTS_HELP,
        "event", event, "iid", "fleet"));
    ttft = histogram("narwhal_ttft_seconds",
        "Arrival to the producer's prefill completion (ttft_s), per request that reached it.",
        BucketedHistogram.scaled(slo.ttftS(), SLO_FACTORS));
    firstByte = histogram("narwhal_first_byte_seconds",
        "Arrival to the first generated token relayed to the client (first_byte_s).",
        BucketedHistogram.scaled(slo.ttftS(), SLO_FACTORS));
    tpot = histogram("narwhal_tpot_seconds",
        "Per-request time per output token after prefill: (last token - prefill completion)/(n-1).",
        BucketedHistogram.scaled(slo.tpotS(), SLO_FACTORS));
    overhead = histogram("narwhal_router_overhead_seconds",
        "Time a request spent being handled inside the router, excluding engine legs, queueing and "
            + "backoff: seat to prefill dispatch plus prefill completion to decode dispatch, per attempt.",
        new BucketedHistogram(OVERHEAD_BOUNDS_S));
  }

  public MetricRegistry registry() {
    return registry;
  }

  /** The type and help of {@code familyName}, or null when it was not described here. */
  public @Nullable MetricFamily family(String familyName) {
    return families.get(familyName);
  }

  /** A request arrived at a completion route (before admission). */
  public void offered() {
    offered.inc();
  }

  /** Counts one request's outcome and observes its latencies. */
  public void record(RequestOutcome o) {
    switch (o.terminal()) {
      case COMPLETED -> served.inc();
      case FAILED -> registry.counter(SeriesName.of("narwhal_failed_total",
          "reason", o.reason() == null ? "unknown" : o.reason(),
          "iid", engines.configured(o.firstFailedIid()))).inc();
      case REFUSED -> labelled("narwhal_refused_total", "cause", o.reason()).inc();
      case REJECTED -> labelled("narwhal_rejected_total", "reason", o.reason()).inc();
      case EXPIRED -> labelled("narwhal_expired_total", "reason", o.reason()).inc();
      case INVALID -> invalid.inc();
      case CANCELLED -> cancelled.inc();
    }
    if (o.tenant() != null) {
      // Bounded: the tenant is a configured name (never a key), the terminal one of seven.
      registry.counter(SeriesName.of("narwhal_tenant_requests_total",
          "tenant", o.tenant(), "terminal", o.terminal().wireName())).inc();
    }
    if (o.attempts() > 1) {
      retries.inc(o.attempts() - 1L);
    }
    if (o.unserved() != null) {
      o.unserved().forEach(phase -> labelled("narwhal_unserved_total", "phase", phase).inc());
    }
    observe(ttft, o.ttftNanos());
    observe(firstByte, o.firstByteNanos());
    observe(tpot, o.tpotNanos());
    observe(overhead, o.routerOverheadNanos());
  }

  /**
   * A caller refused by client authentication: {@code narwhal_auth_failures_total{reason}} ({@code
   * missing}, {@code unknown}, {@code model_not_allowed}, {@code operator}).
   */
  public void authFailed(String reason) {
    labelled("narwhal_auth_failures_total", "reason", reason).inc();
  }

  /** Every tenant's request series at zero from the start, one per terminal. */
  public void watchTenants(java.util.Collection<String> tenants) {
    for (String tenant : tenants) {
      for (narwhal.core.outcome.Terminal t : narwhal.core.outcome.Terminal.values()) {
        registry.counter(SeriesName.of("narwhal_tenant_requests_total", "tenant", tenant, "terminal", t.wireName()));
      }
    }
  }

  /**
   * A prompt the router meant to count exactly was estimated instead: {@code
   * narwhal_tokenize_fallbacks_total{cause}} ({@code unsupported}, {@code timeout}, {@code error},
   * {@code backoff}).
   */
  public void tokenizeFallback(String cause) {
    labelled("narwhal_tokenize_fallbacks_total", "cause", cause).inc();
  }

  /**
   * One breaker decision (see {@code narwhal.core.health.HealthEvents}): {@code
   * narwhal_engine_events_total{event, iid}}, and for probes {@code narwhal_probes_total{probe,
   * outcome}}.
   */
  public void engineEvent(String event, String iid, @Nullable String probe, @Nullable String outcome) {
    counter("narwhal_engine_events_total", EVENTS_HELP, "event", event, "iid", iid).inc();
    if (probe != null && outcome != null) {
      counter("narwhal_probes_total", PROBES_HELP, "probe", probe, "outcome", outcome).inc();
    }
  }

  /**
   * One failed leg of a request on engine {@code iid}: {@code narwhal_engine_failures_total{iid,
   * phase, class}}. Counted for every failed attempt, whether the request retried, poisoned or
   * ended; an iid that is not configured is not counted.
   */
  public void engineFailed(String iid, Phase phase, FailureClass cls) {
    engines.failed(iid, phase, cls);
  }

  /**
   * The total of one counter family over all its labels, e.g. every {@code narwhal_failed_total}
   * series, for the state endpoint.
   */
  public long total(String familyName) {
    long sum = 0;
    for (var entry : registry.getCounters().entrySet()) {
      String name = entry.getKey();
      if (name.equals(familyName) || name.startsWith(familyName + "{")) {
        sum += entry.getValue().getCount();
      }
    }
    return sum;
  }

  /** In-flight, limit and queue-depth gauges over {@code admission}. */
  public void watchAdmission(Admission admission) {
    gauge("narwhal_admission_inflight", "Requests holding an admission seat.", admission::inFlight);
    gauge("narwhal_admission_inflight_limit", "The in-flight limit (serving.max_connections).",
        () -> admission.limits().maxInFlight());
    gauge("narwhal_queued", "Requests waiting in the admission queue.", admission::queued);
    gauge("narwhal_draining", "1 while the router is draining for shutdown.",
        () -> admission.isDraining() ? 1 : 0);
  }

  /** The shared retry credit pool's balance. */
  public void watchRetryBudget(RetryBudget budget) {
    gauge("narwhal_retry_credits", "Retry credits available in the shared pool (serving.retry_budget).",
        budget::available);
  }

  /** {@link #watchFleet(Fleet, LongSupplier)} on the system's monotonic clock (the event loops'). */
  public void watchFleet(Fleet fleet) {
    watchFleet(fleet, System::nanoTime);
  }

  /**
   * Per-engine series: resident work, breaker condition, failure streaks, quarantine (read
   * against {@code nanoTime}, the clock quarantine deadlines are set on), legs dispatched and
   * failed, and the failed and breaker-event counters of each configured engine at zero.
   */
  public void watchFleet(Fleet fleet, LongSupplier nanoTime) {
    engines.watch(this, fleet.engines(), nanoTime);
    for (String iid : engines.iids()) {
      failedSeries(iid);
      LabelValues.ENGINE_EVENTS.forEach(event -> counter("narwhal_engine_events_total", EVENTS_HELP,
          "event", event, "iid", iid));
    }
    for (EngineState e : fleet.engines()) {
      gauge("narwhal_resident_requests", "Requests the router has placed on an engine, by phase.",
          e::residentPrefill, "iid", e.iid(), "phase", "prefill");
      gauge("narwhal_resident_requests", "Requests the router has placed on an engine, by phase.",
          e::residentDecode, "iid", e.iid(), "phase", "decode");
      for (EngineCondition c : EngineCondition.values()) {
        gauge("narwhal_engine_condition", "1 for the breaker condition an engine is in (active, held, ejected).",
            () -> e.condition() == c ? 1 : 0, "iid", e.iid(), "condition", c.wireName());
      }
      gauge("narwhal_ejected", "1 while the breaker keeps an engine ejected.",
          () -> e.condition() == EngineCondition.EJECTED ? 1 : 0, "iid", e.iid());
      for (FailureClass cls : e.streaks().snapshot().keySet()) {
        gauge("narwhal_engine_breaker_streak", "Consecutive failures of one class on an engine.",
            () -> e.streaks().get(cls), "iid", e.iid(), "class", cls.wireName());
      }
    }
    gauge("narwhal_ejected_instances", "Engines the breaker keeps ejected.",
        () -> fleet.engines().stream().filter(e -> e.condition() == EngineCondition.EJECTED).count());
  }

  /**
   * The journal writer's health: rows dropped (by reason), failed writes, reopens, what waits in
   * its bounded queue, and whether writes are failing now (also the reason {@code /ready} gives).
   */
  public void watchJournal(JsonlJournal journal) {
    describe("narwhal_journal_dropped_rows_total", MetricFamily.Type.COUNTER,
        "Journal rows dropped: queue_full (the bounded queue was full), too_large, unencodable, closed.");
    for (JournalDropReason r : JournalDropReason.values()) {
      registry.register(SeriesName.of("narwhal_journal_dropped_rows_total", "reason", r.label()),
          journal.droppedRows(r));
    }
    describe("narwhal_journal_write_errors_total", MetricFamily.Type.COUNTER,
        "Failed journal writes or opens (each is retried; see narwhal_journal_failing).");
    registry.register("narwhal_journal_write_errors_total", journal.writeErrors());
    describe("narwhal_journal_reopens_total", MetricFamily.Type.COUNTER,
        "Times the journal file was reopened (SIGHUP, for log rotation).");
    registry.register("narwhal_journal_reopens_total", journal.reopens());
    gauge("narwhal_journal_failing", "1 while journal writes fail (the router is then not ready).",
        () -> journal.notWritingReason() == null ? 0 : 1);
    gauge("narwhal_journal_queued_rows", "Journal rows waiting for the writer.", journal::queuedRows);
    gauge("narwhal_journal_queued_bytes", "Bytes of journal rows waiting for the writer (bounded).",
        journal::queuedBytes);
    gauge("narwhal_journal_queue_limit_bytes", "The journal queue's byte bound.",
        () -> journal.settings().maxQueuedBytes());
  }

  /**
   * Registers a gauge series read at scrape time (for components outside this class, e.g. the
   * health monitor). Registering the same series twice keeps the first.
   */
  public void gauge(String familyName, String help, Supplier<Number> value, String... labelPairs) {
    describe(familyName, MetricFamily.Type.GAUGE, help);
    registry.gauge(SeriesName.of(familyName, labelPairs), () -> (Gauge<Number>) value::get);
  }

  @Override
  public void registerGauge(String familyName, String help, LongSupplier value, String... labelPairs) {
    gauge(familyName, help, value::getAsLong, labelPairs);
  }

  @Override
  public void registerCounter(String familyName, String help, LongSupplier count, String... labelPairs) {
    if (!familyName.endsWith("_total")) {
      throw new IllegalArgumentException("counter names end in _total: " + familyName);
    }
    if (!registry.getMetrics().containsKey(SeriesName.of(familyName, labelPairs))) {
      readingCounter(familyName, help, count, labelPairs);
    }
  }

  @Override
  public byte[] scrape() {
    return exposition.scrape();
  }

  @Override
  public String scrapeContentType() {
    return PrometheusExposition.CONTENT_TYPE;
  }

  /** A counter series; {@code familyName} must end in {@code _total}. */
  public Counter counter(String familyName, String help, String... labelPairs) {
    if (!familyName.endsWith("_total")) {
      throw new IllegalArgumentException("counter names end in _total: " + familyName);
    }
    describe(familyName, MetricFamily.Type.COUNTER, help);
    return registry.counter(SeriesName.of(familyName, labelPairs));
  }

  /**
   * A counter series whose count is read from {@code count} at scrape time (a cumulative count
   * kept by its owner, e.g. an engine's legs dispatched).
   */
  public void readingCounter(String familyName, String help, LongSupplier count, String... labelPairs) {
    describe(familyName, MetricFamily.Type.COUNTER, help);
    registry.register(SeriesName.of(familyName, labelPairs), new ReadingCounter(count));
  }

  private void failedSeries(String iid) {
    LabelValues.FAILED_REASONS.forEach(r ->
        registry.counter(SeriesName.of("narwhal_failed_total", "reason", r, "iid", iid)));
  }

  private BucketedHistogram histogram(String familyName, String help, BucketedHistogram h) {
    describe(familyName, MetricFamily.Type.HISTOGRAM, help);
    Metric registered = registry.register(familyName, h);
    return (BucketedHistogram) registered;
  }

  private Counter labelled(String familyName, String label, @Nullable String value) {
    return registry.counter(SeriesName.of(familyName, label, value == null ? "unknown" : value));
  }

  private void describe(String familyName, MetricFamily.Type type, String help) {
    families.putIfAbsent(familyName, new MetricFamily(familyName, type, help));
  }

  private static void observe(BucketedHistogram h, @Nullable Long nanos) {
    if (nanos != null) {
      h.observe(nanos / 1e9);
    }
  }
}
