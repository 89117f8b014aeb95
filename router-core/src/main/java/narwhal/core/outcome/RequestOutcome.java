package narwhal.core.outcome;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import narwhal.api.RouterError;
import org.jspecify.annotations.Nullable;

/**
 * How one request ended: everything the journal row, the metrics and the log line say about it.
 * Built once per request, at its single exit; durations are in nanoseconds and count from the
 * request's arrival at the router (for HTTP: when its headers arrived).
 *
 * @param rid the router's request id ({@code x-request-id})
 * @param clientRid the client's {@code X-Request-Id}, or null
 * @param arrivedEpochSeconds wall-clock arrival time
 * @param route {@code completions} or {@code chat}; null when the body was never understood
 * @param stream whether the client asked for a stream; null when unknown
 * @param inputLen prompt length in tokens: the router's exact count (a token-id prompt, or an
 *     engine's tokenize route), else the engine's {@code usage.prompt_tokens} when it reported one,
 *     else the router's estimate; null when the prompt was never sized
 * @param wantedLen the output limit the client asked for ({@code max_tokens} or {@code
 *     max_completion_tokens}), or null
 * @param outputLen tokens relayed to the client
 * @param ttftNanos arrival to the producer's HTTP completion (the last successful prefill), or null
 * @param firstByteNanos arrival to the first generated decode token, or null
 * @param tpotNanos (last token - prefill completion) / (n - 1); null below 2 tokens
 * @param decodeTpotNanos (last token - first token) / (n - 1); null below 2 tokens
 * @param prefillIid the producer of the last attempt, or null
 * @param decodeIid the consumer of the last attempt, or null
 * @param terminal how it ended
 * @param reason the terminal's reason (see {@link Terminal}), or null
 * @param error what the client was told, or null (completed, cancelled)
 * @param attempts prefill/decode attempts dispatched
 * @param decodeAttempts decode legs dispatched
 * @param attemptFailures one entry per failed attempt ({@code attempt, phase, iid, reason, message})
 * @param queueWaitNanos time spent waiting for an admission seat, or null when it never waited
 * @param routerOverheadNanos time spent inside the router proper (see docs/journal-and-metrics.md, "Metrics"), or null
 *     when the request never reached the engines
 * @param durationNanos arrival to the end
 * @param upstreamNanos time with an engine leg in flight
 * @param cancelledPhase where a cancelled request was ({@code request}, {@code queue}, {@code
 *     prefill}, {@code decode}, ...), or null
 * @param firstFailedIid the engine whose failure started the request's retries (its first failed
 *     attempt's), or null when no attempt failed; the journal's {@code first_failed_iid}
 * @param poisoned the request failed the same way on two engines of one role, so it stopped
 *     retrying and its failures were not counted against those engines; the journal's {@code poisoned}
 * @param traceId the W3C trace id the request's legs carried, or null when none ran; the journal's
 *     {@code trace_id}
 * @param attemptLegs one entry per attempt ({@code attempt, prefill_iid, prefill_backend_id,
 *     decode_iid, decode_backend_id, outcome}); the journal's {@code attempt_legs}
 * @param frontEnd the front-end that carried the request ({@code http}, {@code grpc}), or null when
 *     it came another way (a router used directly); the journal's {@code front_end}
 * @param tenant the authenticated caller's tenant, by its configured name, or null when the router
 *     has no tenants (or the caller was not authenticated); the journal's {@code tenant}
 * @param inputSized how the router sized the prompt it priced and reserved with: {@code exact} (a
 *     token-id prompt, or an engine's tokenize route) or {@code estimated} ({@code
 *     engine.chars_per_token}); null when it was never sized; the journal's {@code input_sized}
 * @param admissionPrice predictive admission's price of the first attempt ({@code backlog_s,
 *     own_prefill_s, elapsed_s, price_s}), or null when it was not priced; the journal's {@code
 *     admission_price}
 * @param unserved the phases ({@code prefill}, {@code decode}) a priced placement put on an engine
 *     projected to miss the SLO because none would meet it; empty when every priced placement met
 *     it, null when no placement was priced; the journal's {@code unserved}
 * @param cachePlacement how cache-aware placement placed the last prefill ({@code hit}, {@code miss},
 *     {@code spill}, {@code approximate}, {@code off}), or null when no prefill was placed; the
 *     journal's {@code cache_placement}
 * @param predictedCachedTokens the cached prompt tokens the index predicted on that prefill's engine,
 *     or null when cache-aware placement did not apply; the journal's {@code predicted_cached_tokens}
 * @param cachedTokens the cached prompt tokens that engine reported ({@code
 *     usage.prompt_tokens_details.cached_tokens}), or null when it reports none; the journal's {@code
 *     cached_tokens}
 */
public record RequestOutcome(
    String rid,
    @Nullable String clientRid,
    double arrivedEpochSeconds,
    @Nullable String route,
    @Nullable Boolean stream,
    @Nullable Long inputLen,
    @Nullable Long wantedLen,
    int outputLen,
    @Nullable Long ttftNanos,
    @Nullable Long firstByteNanos,
    @Nullable Long tpotNanos,
    @Nullable Long decodeTpotNanos,
    @Nullable String prefillIid,
    @Nullable String decodeIid,
    Terminal terminal,
    @Nullable String reason,
    @Nullable RouterError error,
    int attempts,
    int decodeAttempts,
    List<Map<String, Object>> attemptFailures,
    @Nullable Long queueWaitNanos,
    @Nullable Long routerOverheadNanos,
    long durationNanos,
    long upstreamNanos,
    @Nullable String cancelledPhase,
    @Nullable String firstFailedIid,
    boolean poisoned,
    @Nullable String traceId,
    List<Map<String, Object>> attemptLegs,
    @Nullable String frontEnd,
    @Nullable String inputSized,
    @Nullable Map<String, Object> admissionPrice,
    @Nullable List<String> unserved,
    @Nullable String tenant,
    @Nullable String cachePlacement,
    @Nullable Long predictedCachedTokens,
    @Nullable Long cachedTokens) {

  public RequestOutcome {
    Objects.requireNonNull(rid, "rid");
    Objects.requireNonNull(terminal, "terminal");
    attemptFailures = List.copyOf(attemptFailures);
    attemptLegs = List.copyOf(attemptLegs);
    unserved = unserved == null ? null : List.copyOf(unserved);
  }

  public static Builder builder(String rid, Terminal terminal) {
    return new Builder(rid, terminal);
  }

  /** The HTTP status the client got: 200 when completed, none when it went away. */
  public @Nullable Integer status() {
    if (terminal == Terminal.COMPLETED) {
      return 200;
    }
    return error == null ? null : error.status();
  }

  /** Prefill and decode ran on different engines (the KV cache crossed between them). */
  public boolean crossed() {
    return prefillIid != null && decodeIid != null && !prefillIid.equals(decodeIid);
  }

  /**
   * The journal's terminal row ({@code kind: "request"}), keys in a stable order. Unknown values
   * are written as null rather than left out, so every request row has the same columns. Every
   * duration is in seconds and its key ends in {@code _s}; the journal writes the numbers as plain
   * decimals ({@link narwhal.core.journal.PlainDecimals}).
   */
  public Map<String, Object> journalRow(String runId) {
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("kind", "request");
    row.put("run", runId);
    row.put("rid", rid);
    row.put("client_rid", clientRid);
    row.put("trace_id", traceId);
    row.put("front_end", frontEnd);
    row.put("tenant", tenant);
    row.put("arrived", arrivedEpochSeconds);
    row.put("route", route);
    row.put("stream", stream);
    row.put("input_len", inputLen);
    row.put("input_sized", inputSized);
    row.put("wanted_len", wantedLen);
    row.put("output_len", outputLen);
    row.put("ttft_s", seconds(ttftNanos));
    row.put("tpot_s", seconds(tpotNanos));
    row.put("first_byte_s", seconds(firstByteNanos));
    row.put("decode_tpot_s", seconds(decodeTpotNanos));
    row.put("prefill_iid", prefillIid);
    row.put("decode_iid", decodeIid);
    row.put("crossed", crossed());
    row.put("unserved", unserved);
    row.put("cache_placement", cachePlacement);
    row.put("predicted_cached_tokens", predictedCachedTokens);
    row.put("cached_tokens", cachedTokens);
    row.put("terminal", terminal.wireName());
    row.put("reason", reason);
    row.put("status", status());
    row.put("error_type", error == null ? null : error.type());
    row.put("error_code", error == null ? null : error.code());
    row.put("error", error == null ? null : error.message());
    row.put("attempts", attempts);
    row.put("decode_attempts", decodeAttempts);
    row.put("attempt_failures", attemptFailures);
    row.put("attempt_legs", attemptLegs);
    row.put("first_failed_iid", firstFailedIid);
    row.put("poisoned", poisoned);
    row.put("queue_wait_s", seconds(queueWaitNanos));
    row.put("admission_price", admissionPrice);
    row.put("router_overhead_s", seconds(routerOverheadNanos));
    row.put("duration_s", durationNanos / 1e9);
    row.put("upstream_s", upstreamNanos / 1e9);
    row.put("cancelled_phase", cancelledPhase);
    return row;
  }

  private static @Nullable Double seconds(@Nullable Long nanos) {
    return nanos == null ? null : nanos / 1e9;
  }

  /** Builds a {@link RequestOutcome}; everything not set is null, zero or empty. */
  public static final class Builder {
    private final String rid;
    private final Terminal terminal;
    private @Nullable String clientRid;
    private double arrivedEpochSeconds;
    private @Nullable String route;
    private @Nullable Boolean stream;
    private @Nullable Long inputLen;
    private @Nullable Long wantedLen;
    private int outputLen;
    private @Nullable Long ttftNanos;
    private @Nullable Long firstByteNanos;
    private @Nullable Long tpotNanos;
    private @Nullable Long decodeTpotNanos;
    private @Nullable String prefillIid;
    private @Nullable String decodeIid;
    private @Nullable String reason;
    private @Nullable RouterError error;
    private int attempts;
    private int decodeAttempts;
    private List<Map<String, Object>> attemptFailures = new ArrayList<>();
    private @Nullable Long queueWaitNanos;
    private @Nullable Long routerOverheadNanos;
    private long durationNanos;
    private long upstreamNanos;
    private @Nullable String cancelledPhase;
    private @Nullable String firstFailedIid;
    private boolean poisoned;
    private @Nullable String traceId;
    private List<Map<String, Object>> attemptLegs = new ArrayList<>();
    private @Nullable String frontEnd;
    private @Nullable String inputSized;
    private @Nullable Map<String, Object> admissionPrice;
    private @Nullable List<String> unserved;
    private @Nullable String tenant;
    private @Nullable String cachePlacement;
    private @Nullable Long predictedCachedTokens;
    private @Nullable Long cachedTokens;

    private Builder(String rid, Terminal terminal) {
      this.rid = rid;
      this.terminal = terminal;
    }

    /** The front-end that carried the request ({@code http}, {@code grpc}), or null. */
    public Builder frontEnd(@Nullable String v) {
      frontEnd = v;
      return this;
    }

    /** The caller's tenant (its configured name), or null without tenants. */
    public Builder tenant(@Nullable String v) {
      tenant = v;
      return this;
    }

    public Builder clientRid(@Nullable String v) {
      clientRid = v == null || v.isEmpty() ? null : v;
      return this;
    }

    public Builder arrived(double epochSeconds) {
      arrivedEpochSeconds = epochSeconds;
      return this;
    }

    public Builder request(@Nullable String route, @Nullable Boolean stream, @Nullable Long inputLen,
        @Nullable Long wantedLen) {
      this.route = route;
      this.stream = stream;
      this.inputLen = inputLen;
      this.wantedLen = wantedLen;
      return this;
    }

    public Builder outputLen(int v) {
      outputLen = v;
      return this;
    }

    public Builder latency(@Nullable Long ttft, @Nullable Long firstByte, @Nullable Long tpot,
        @Nullable Long decodeTpot) {
      ttftNanos = ttft;
      firstByteNanos = firstByte;
      tpotNanos = tpot;
      decodeTpotNanos = decodeTpot;
      return this;
    }

    public Builder placement(@Nullable String prefill, @Nullable String decode) {
      prefillIid = prefill;
      decodeIid = decode;
      return this;
    }

    public Builder reason(@Nullable String v) {
      reason = v;
      return this;
    }

    public Builder error(@Nullable RouterError v) {
      error = v;
      return this;
    }

    public Builder attempts(int all, int decode, List<Map<String, Object>> failures) {
      attempts = all;
      decodeAttempts = decode;
      attemptFailures = failures;
      return this;
    }

    /** The engine whose failure started the retries, and whether the request was poisoned. */
    public Builder retryChain(@Nullable String firstFailed, boolean wasPoisoned) {
      firstFailedIid = firstFailed;
      poisoned = wasPoisoned;
      return this;
    }

    public Builder timing(@Nullable Long queueWait, @Nullable Long routerOverhead, long duration, long upstream) {
      queueWaitNanos = queueWait;
      routerOverheadNanos = routerOverhead;
      durationNanos = duration;
      upstreamNanos = upstream;
      return this;
    }

    public Builder cancelledPhase(@Nullable String v) {
      cancelledPhase = v;
      return this;
    }

    /** The trace the legs carried and each attempt's legs with their backend request ids. */
    public Builder legs(@Nullable String trace, List<Map<String, Object>> legs) {
      traceId = trace;
      attemptLegs = legs;
      return this;
    }

    /** How the router sized the prompt ({@code exact}, {@code estimated}), or null. */
    public Builder inputSized(@Nullable String v) {
      inputSized = v;
      return this;
    }

    /** Predictive admission's price of the first attempt, or null when it was not priced. */
    public Builder admissionPrice(@Nullable Map<String, Object> v) {
      admissionPrice = v;
      return this;
    }

    /** The phases placed unserved, empty when all met the SLO, null when none was priced. */
    public Builder unserved(@Nullable List<String> v) {
      unserved = v;
      return this;
    }

    /** Cache-aware placement's label, the predicted and the reported cached tokens (each may be null). */
    public Builder cache(@Nullable String placement, @Nullable Long predicted, @Nullable Long reported) {
      cachePlacement = placement;
      predictedCachedTokens = predicted;
      cachedTokens = reported;
      return this;
    }

    public RequestOutcome build() {
      return new RequestOutcome(rid, clientRid, arrivedEpochSeconds, route, stream, inputLen, wantedLen,
          outputLen, ttftNanos, firstByteNanos, tpotNanos, decodeTpotNanos, prefillIid, decodeIid, terminal,
          reason, error, attempts, decodeAttempts, attemptFailures, queueWaitNanos, routerOverheadNanos,
          durationNanos, upstreamNanos, cancelledPhase, firstFailedIid, poisoned,
          traceId, attemptLegs, frontEnd, inputSized, admissionPrice, unserved, tenant, cachePlacement,
          predictedCachedTokens, cachedTokens);
    }
  }
}
