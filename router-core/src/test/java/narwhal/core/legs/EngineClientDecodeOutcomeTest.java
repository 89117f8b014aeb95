package narwhal.core.legs;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import narwhal.config.EngineRole;
import narwhal.config.EngineSpec;
import narwhal.api.FailureClass;
import narwhal.spi.Phase;
import narwhal.spi.PrefillResult;
import narwhal.spi.TransportFailure;
import narwhal.proto.v1.KvHandoffDescriptor;
import narwhal.proto.v1.Route;
import narwhal.testing.OpenAiWire;
import narwhal.testing.ScriptedTransport.Call;
import narwhal.testing.TestDialect;
import narwhal.testing.TestDialectWire;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/** How a decode leg ends: termination rules, status mapping, transport faults, handoff checks. */
class EngineClientDecodeOutcomeTest {

  private final LegFixture f = new LegFixture();

  @Test
  void decode_crossedHandoff_sendsProducerParamsWithFreshBackendId() {
    f.decode();

    Call call = f.transport.last();
    assertThat(call.engine).isEqualTo(LegFixture.D1.url());
    assertThat(call.request.path()).isEqualTo("/v1/completions");
    assertThat(call.request.headers()).containsEntry("X-Request-Id", "b1");
    assertThat(OpenAiWire.tree(call.body()).get("kv_handoff")).isEqualTo(OpenAiWire.tree(TestDialectWire.PRODUCER_HANDOFF));
  }

  @Test
  void decode_handoffFromTheConsumerItself_sendsNoTransferParams() {
    EngineSpec both = TestDialect.engine("p1", "http://10.0.0.1:8100", EngineRole.BOTH);

    f.client.decode(both, LegFixture.COMPLETION, LegFixture.handoff(Route.ROUTE_COMPLETIONS),
        LegFixture.decodeLimits(2500, 10_000), f.loop, f.listener);

    assertThat(OpenAiWire.tree(f.transport.last().body()).has("kv_handoff")).isFalse();
  }

  @Test
  void decode_doneBeforeAnyToken_fails502WithExactMessage() {
    f.decode();
    Call call = f.transport.last().sse();
    call.event(OpenAiWire.usage(3, 0));
    call.event("[DONE]");

    EngineFailure failure = f.listener.failure();
    assertThat(failure.status()).isEqualTo(502);
    assertThat(failure.getMessage()).startsWith("stream ended with [DONE] before any token arrived from decode engine ");
    assertThat(failure.failureClass()).isEqualTo(FailureClass.STREAM);
    assertThat(call.cancelled()).isTrue();
  }

  @Test
  void decode_cleanEndWithoutDone_fails502Stream() {
    f.decode();
    Call call = f.transport.last().sse();
    call.event(OpenAiWire.completionToken("a"));
    call.end();

    EngineFailure failure = f.listener.failure();
    assertThat(failure.status()).isEqualTo(502);
    assertThat(failure.failureClass()).isEqualTo(FailureClass.STREAM);
    assertThat(failure.getMessage()).contains("before [DONE]");
    assertThat(f.listener.events).hasSize(1);
  }

  @ParameterizedTest
  @CsvSource({"503, 503", "400, 400", "429, 429", "200, 500", "'\"oops\"', 500"})
  void decode_errorObjectInA200Stream_failsWithTheObjectsStatus(String code, int status) {
    f.decode();
    Call call = f.transport.last().sse();
    call.event(OpenAiWire.completionToken("a"));
    call.event(OpenAiWire.streamError(code));

    EngineFailure failure = f.listener.failure();
    assertThat(failure.status()).isEqualTo(status);
    assertThat(failure.getMessage()).contains("boom");
    assertThat(call.cancelled()).isTrue();
  }

  @ParameterizedTest
  @CsvSource({
      "500, 502, INFERENCE_STATUS, true",
      "504, 504, TIMEOUT, true",
      "408, 504, OVERLOAD, true",
      "429, 502, OVERLOAD, true",
      "503, 502, OVERLOAD, true",
      "400, 400, REJECTED, false"})
  void decode_non200HeadWithOpenAiErrorBody_isMapped(int engineStatus, int status, FailureClass cls, boolean transientFault) {
    f.decode();
    f.transport.last().respond(engineStatus, OpenAiWire.errorBody(engineStatus, "context too long"));

    EngineFailure failure = f.listener.failure();
    assertThat(failure.status()).isEqualTo(status);
    assertThat(failure.failureClass()).isEqualTo(cls);
    assertThat(failure.isTransient()).isEqualTo(transientFault);
    assertThat(failure.getMessage()).contains("HTTP " + engineStatus).contains("context too long");
    assertThat(failure.toRouterError().status()).isEqualTo(status);
    assertThat(failure.toRouterError().type()).isEqualTo("decode");
  }

  @ParameterizedTest
  @CsvSource({
      "CONNECT_FAILED, 502, CONNECTION",
      "CONNECT_TIMEOUT, 504, TIMEOUT",
      "CONNECTION_CLOSED, 502, CONNECTION",
      "BODY_TOO_LARGE, 502, RESPONSE_LIMIT",
      "PROTOCOL_ERROR, 502, STREAM"})
  void decode_transportFailure_isMapped(TransportFailure.Kind kind, int status, FailureClass cls) {
    f.decode();
    f.transport.last().fail(kind);

    EngineFailure failure = f.listener.failure();
    assertThat(failure.status()).isEqualTo(status);
    assertThat(failure.failureClass()).isEqualTo(cls);
    assertThat(failure.phase()).isEqualTo(Phase.DECODE);
    assertThat(failure.engineIid()).isEqualTo("d1");
  }

  @Test
  void decode_malformedEvent_fails502AndCancels() {
    f.decode();
    Call call = f.transport.last().sse();
    call.event("{not json");

    assertThat(f.listener.failure().status()).isEqualTo(502);
    assertThat(f.listener.failure().failureClass()).isEqualTo(FailureClass.STREAM);
    assertThat(call.cancelled()).isTrue();
  }

  @Test
  void decode_200WithJsonInsteadOfEventStream_fails502() {
    f.decode();
    Call call = f.transport.last();
    call.respond(200, "{\"choices\":[]}");

    assertThat(f.listener.failure().status()).isEqualTo(502);
    assertThat(call.cancelled()).isTrue();
  }

  static Stream<Arguments> invalidHandoffs() {
    KvHandoffDescriptor good = LegFixture.handoff(Route.ROUTE_COMPLETIONS).descriptor();
    return Stream.of(
        Arguments.of("missing engine id",
            LegFixture.handoff(good.toBuilder().clearEngineId().build(), Route.ROUTE_COMPLETIONS),
            Route.ROUTE_COMPLETIONS, "no producer engine identity"),
        Arguments.of("empty block ids",
            LegFixture.handoff(good.toBuilder().clearBlockIds().build(), Route.ROUTE_COMPLETIONS),
            Route.ROUTE_COMPLETIONS, "no KV block ids"),
        Arguments.of("negative block id",
            LegFixture.handoff(good.toBuilder().addBlockIds(-1).build(), Route.ROUTE_COMPLETIONS),
            Route.ROUTE_COMPLETIONS, "negative KV block id (-1)"),
        Arguments.of("connector mismatch",
            LegFixture.handoff(good.toBuilder().setConnector("mooncake").build(), Route.ROUTE_COMPLETIONS),
            Route.ROUTE_COMPLETIONS, "connector 'mooncake'"),
        Arguments.of("endpoint mismatch", LegFixture.handoff(Route.ROUTE_COMPLETIONS),
            Route.ROUTE_CHAT_COMPLETIONS, "/v1/completions but the decode leg would use /v1/chat/completions"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidHandoffs")
  void decode_invalidHandoff_failsAsKvHandoffWithoutOpeningAnExchange(
      String name, PrefillResult handoff, Route decodeRoute, String problem) {
    f.client.decode(LegFixture.D1, decodeRoute == Route.ROUTE_COMPLETIONS ? LegFixture.COMPLETION : LegFixture.CHAT,
        handoff, LegFixture.decodeLimits(2500, 10_000), f.loop, f.listener);

    EngineFailure failure = f.listener.failure();
    assertThat(failure.failureClass()).isEqualTo(FailureClass.KV_HANDOFF);
    assertThat(failure.reason()).isEqualTo("invalid_response");
    assertThat(failure.status()).isEqualTo(502);
    assertThat(failure.engineIid()).isEqualTo("p1");
    assertThat(failure.getMessage()).contains(problem);
    assertThat(f.transport.calls()).isEmpty();
    assertThat(f.loop.pendingTasks()).isZero();
  }

  @Test
  @SuppressWarnings("unchecked")
  void parameters_areADetachedCopy() {
    PrefillResult handoff = LegFixture.handoff(Route.ROUTE_COMPLETIONS);

    Map<String, Object> first = handoff.parameters();
    first.put("engine_id", "tampered");
    ((List<Object>) first.get("block_ids")).clear();
    first.remove("host");

    assertThat(OpenAiWire.tree(new com.fasterxml.jackson.databind.ObjectMapper().valueToTree(handoff.parameters())
        .toString())).isEqualTo(OpenAiWire.tree(TestDialectWire.PRODUCER_HANDOFF));
    assertThat(handoff.descriptor().getEngineId()).isEqualTo("7f3c1b2a-engine-p");

    f.client.decode(LegFixture.D1, LegFixture.COMPLETION, handoff, LegFixture.decodeLimits(2500, 10_000), f.loop,
        f.listener);
    assertThat(OpenAiWire.tree(f.transport.last().body()).get("kv_handoff"))
        .isEqualTo(OpenAiWire.tree(TestDialectWire.PRODUCER_HANDOFF));
  }
}
