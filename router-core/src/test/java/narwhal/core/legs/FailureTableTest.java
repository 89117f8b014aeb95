package narwhal.core.legs;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import narwhal.api.FailureClass;
import narwhal.api.FailureOrigin;
import narwhal.api.FailurePolicy;
import narwhal.spi.Phase;
import narwhal.spi.TransportFailure;
import narwhal.spi.TransportFailure.Kind;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The whole failure table in one place: every piece of evidence a leg can fail with, and what the
 * router makes of it (origin, class, the client's status, the journal reason, the engine's own
 * status as recorded, whether a retry may follow, whether the breaker counts it, whether it can
 * be the request's own doing). A status is mapped by one rule wherever it arrives: a 503 inside a
 * 200 stream is back-pressure exactly as a 503 response is, and keeps its own status for the
 * client as the spec asks.
 */
class FailureTableTest {

  private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

  @ParameterizedTest(name = "{0}")
  @CsvSource(nullValues = "-", value = {
    // evidence                  origin        class             client reason               engine retry  breaker poison
    "headers 408,                HEADERS,      OVERLOAD,         504,   engine_overloaded,    408,   true,  true,  false",
    "headers 429,                HEADERS,      OVERLOAD,         502,   engine_overloaded,    429,   true,  true,  false",
    "headers 503,                HEADERS,      OVERLOAD,         502,   engine_overloaded,    503,   true,  true,  false",
    "headers 401,                HEADERS,      INFERENCE_STATUS, 502,   engine_credentials,   401,   false, true,  true",
    "headers 403,                HEADERS,      INFERENCE_STATUS, 502,   engine_credentials,   403,   false, true,  true",
    "headers 504,                HEADERS,      TIMEOUT,          504,   engine_timeout,       504,   true,  true,  true",
    "headers 500,                HEADERS,      INFERENCE_STATUS, 502,   engine_error,         500,   true,  true,  true",
    "headers 501,                HEADERS,      INFERENCE_STATUS, 502,   engine_error,         501,   true,  true,  true",
    "headers 400,                HEADERS,      REJECTED,         400,   engine_rejected,      400,   false, false, false",
    "headers 422,                HEADERS,      REJECTED,         422,   engine_rejected,      422,   false, false, false",
    "headers 302,                HEADERS,      INFERENCE_STATUS, 502,   invalid_response,     302,   false, true,  true",
    "stream 408,                 STREAM_EVENT, OVERLOAD,         408,   engine_overloaded,    408,   true,  true,  false",
    "stream 429,                 STREAM_EVENT, OVERLOAD,         429,   engine_overloaded,    429,   true,  true,  false",
    "stream 503,                 STREAM_EVENT, OVERLOAD,         503,   engine_overloaded,    503,   true,  true,  false",
    "stream 401,                 STREAM_EVENT, INFERENCE_STATUS, 401,   engine_credentials,   401,   false, true,  true",
    "stream 504,                 STREAM_EVENT, TIMEOUT,          504,   engine_timeout,       504,   true,  true,  true",
    "stream 500,                 STREAM_EVENT, INFERENCE_STATUS, 500,   engine_error,         500,   true,  true,  true",
    "stream 502,                 STREAM_EVENT, INFERENCE_STATUS, 502,   engine_error,         502,   true,  true,  true",
    "stream 400,                 STREAM_EVENT, REJECTED,         400,   engine_rejected,      400,   false, false, false",
    "stream 0,                   STREAM_EVENT, INFERENCE_STATUS, 500,   engine_error,         0,     true,  true,  true",
    "stream 700,                 STREAM_EVENT, INFERENCE_STATUS, 500,   engine_error,         700,   true,  true,  true",
    "connect refused,            CONNECT,      CONNECTION,       502,   engine_unreachable,   -,     true,  true,  false",
    "connect timeout,            CONNECT,      TIMEOUT,          504,   engine_timeout,       -,     true,  true,  false",
    "connection closed,          RESPONSE,     CONNECTION,       502,   engine_connection,    -,     true,  true,  true",
    "response too large,         RESPONSE,     RESPONSE_LIMIT,   502,   response_limit,       -,     false, false, false",
    "invalid http,               RESPONSE,     STREAM,           502,   invalid_response,     -,     false, true,  true",
    "prefill timeout,            TIMEOUT,      TIMEOUT,          504,   engine_timeout,       -,     true,  true,  true",
    "first token (silent),       TIMEOUT,      STREAM,           504,   engine_timeout,       -,     true,  true,  true",
    "first token (other output), TIMEOUT,      OVERLOAD,         504,   engine_timeout,       -,     true,  true,  false",
    "silence between tokens,     TIMEOUT,      STREAM,           504,   engine_timeout,       -,     false, true,  true",
    "not an event stream,        HEADERS,      STREAM,           502,   invalid_response,     -,     false, true,  true",
    "unreadable event,           STREAM_EVENT, STREAM,           502,   invalid_response,     -,     false, true,  true",
    "ended before [DONE],        RESPONSE,     STREAM,           502,   invalid_response,     -,     false, true,  true",
    "unusable handoff,           HANDOFF,      KV_HANDOFF,       502,   invalid_response,     -,     false, true,  true",
    "router bug,                 ROUTER,       INFERENCE_STATUS, 502,   internal,             -,     false, true,  true",
  })
  void everyEvidence_mapsByTheOneTable(String evidence, FailureOrigin origin, FailureClass cls, int clientStatus,
      String reason, Integer engineStatus, boolean retried, boolean breakerCounts, boolean requestMayCause) {
    EngineFailure f = failure(evidence);

    assertThat(f.origin()).as("origin").isEqualTo(origin);
    assertThat(f.failureClass()).as("class").isEqualTo(cls);
    assertThat(f.status()).as("client status").isEqualTo(clientStatus);
    assertThat(f.toRouterError().status()).isEqualTo(clientStatus);
    assertThat(f.reason()).as("reason").isEqualTo(reason);
    assertThat(f.engineStatus()).as("engine status").isEqualTo(engineStatus);
    assertThat(f.isTransient()).as("retried").isEqualTo(retried);
    assertThat(f.rule().countsTowardBreaker()).as("breaker counts").isEqualTo(breakerCounts);
    assertThat(FailurePolicy.requestMayCause(f.failureClass(), f.origin())).as("request may cause")
        .isEqualTo(requestMayCause);
  }

  private static EngineFailure failure(String evidence) {
    String[] words = evidence.split(" ");
    switch (words[0]) {
      case "headers":
        return EngineFailures.fromStatus(Phase.DECODE, "d0", Integer.parseInt(words[1]), "engine says no");
      case "stream":
        return EngineFailures.fromStreamError("d0", Integer.parseInt(words[1]), "engine says no", 3);
      default:
        break;
    }
    switch (evidence) {
      case "connect refused":
        return EngineFailures.fromTransport(Phase.PREFILL, "p0", new TransportFailure(Kind.CONNECT_FAILED, "x"), 0);
      case "connect timeout":
        return EngineFailures.fromTransport(Phase.PREFILL, "p0", new TransportFailure(Kind.CONNECT_TIMEOUT, "x"), 0);
      case "connection closed":
        return EngineFailures.fromTransport(Phase.DECODE, "d0", new TransportFailure(Kind.CONNECTION_CLOSED, "x"), 2);
      case "response too large":
        return EngineFailures.fromTransport(Phase.PREFILL, "p0", new TransportFailure(Kind.BODY_TOO_LARGE, "x"), 0);
      case "invalid http":
        return EngineFailures.fromTransport(Phase.DECODE, "d0", new TransportFailure(Kind.PROTOCOL_ERROR, "x"), 0);
      case "prefill timeout":
        return EngineFailures.prefillTimeout("p0", SECOND);
      case "first token (silent)":
        return EngineFailures.firstTokenTimeout("d0", SECOND, false);
      case "first token (other output)":
        return EngineFailures.firstTokenTimeout("d0", SECOND, true);
      case "silence between tokens":
        return EngineFailures.silence("d0", SECOND, 4);
      case "not an event stream":
        return EngineFailures.brokenStream("d0", FailureOrigin.HEADERS, "text/html", false, null);
      case "unreadable event":
        return EngineFailures.brokenStream("d0", FailureOrigin.STREAM_EVENT, "garbage", false, null);
      case "ended before [DONE]":
        return EngineFailures.brokenStream("d0", FailureOrigin.RESPONSE, "eof", false, null);
      case "unusable handoff":
        return EngineFailures.kvHandoff("p0", "no block ids");
      case "router bug":
        return EngineFailures.internal(Phase.DECODE, new IllegalStateException("bug"));
      default:
        throw new IllegalArgumentException(evidence);
    }
  }
}
