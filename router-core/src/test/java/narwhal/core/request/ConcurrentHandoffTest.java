package narwhal.core.request;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import narwhal.config.EngineRole;
import narwhal.config.EngineSpec;
import narwhal.config.FleetConfig;
import narwhal.api.RouterError;
import narwhal.spi.DecodeEventDecoder;
import narwhal.spi.EngineDialect;
import narwhal.spi.EngineDialects;
import narwhal.spi.EngineHttpRequest;
import narwhal.spi.HandoffStyle;
import narwhal.spi.UnreadableHandoffException;
import narwhal.core.request.RouterFixture.Client;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.KvHandoffDescriptor;
import narwhal.proto.v1.Route;
import narwhal.testing.OpenAiWire;
import narwhal.testing.ScriptedTransport.Call;
import narwhal.testing.TestDialect;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The core's orchestration of a {@link HandoffStyle#CONCURRENT} dialect (SGLang-shaped: the router
 * plans a rendezvous both legs carry and sends them at once), on a manual clock with the test
 * playing the engines. The dialect here is the test dialect's OpenAI wire plus a {@code room} field.
 */
class ConcurrentHandoffTest {

  private static FleetConfig fleet() {
    FleetConfig c = FleetConfig.of("m", List.of(
        EngineSpec.of("p1", "http://10.0.0.1:8100", EngineRole.PREFILL).withDialect(RoomDialect.NAME),
        EngineSpec.of("p2", "http://10.0.0.2:8100", EngineRole.PREFILL).withDialect(RoomDialect.NAME),
        EngineSpec.of("d1", "http://10.0.0.3:8200", EngineRole.DECODE).withDialect(RoomDialect.NAME),
        EngineSpec.of("d2", "http://10.0.0.4:8200", EngineRole.DECODE).withDialect(RoomDialect.NAME)));
    return c.withEngine(c.engine().withFirstTokenTimeoutS(2.0));
  }

  private static RouterFixture router(FleetConfig config) {
    return new RouterFixture(config, EngineDialects.of(new RoomDialect()));
  }

  private static long room(Call call) {
    return OpenAiWire.tree(call.body()).path("room").asLong(-1);
  }

  @Test
  void bothLegsLeaveAtOnce_withOneRendezvous_andTheClientStreamsFromDecode() {
    RouterFixture r = router(fleet());
    Client c = r.submitCompletion();

    assertThat(r.transport.calls()).hasSize(2);
    Call decode = r.call(0);
    Call prefill = r.call(1);
    assertThat(r.iidOf(decode)).isEqualTo("d1");
    assertThat(r.iidOf(prefill)).isEqualTo("p1");
    assertThat(room(prefill)).isNotNegative().isEqualTo(room(decode));
    assertThat(OpenAiWire.tree(decode.body()).path("bootstrap_host").asText()).isEqualTo("10.0.0.1");
    assertThat(r.residentPrefill()).isEqualTo(1);
    assertThat(r.residentDecode()).isEqualTo(1);

    r.loop.advanceMillis(30);
    prefill.respond(200, "{\"choices\":[{\"text\":\"x\"}],\"usage\":{\"prompt_tokens\":9}}");
    assertThat(r.residentPrefill()).isZero();

    r.loop.advanceMillis(20);
    decode.sse().event(OpenAiWire.completionToken("Hi")).event(OpenAiWire.completionToken(" there"));
    decode.event("[DONE]").end();

    assertThat(c.sink().log).containsExactly("start", "token:Hi", "token: there", "complete");
    assertThat(r.row()).containsEntry("terminal", "completed").containsEntry("ttft_s", 0.03)
        .containsEntry("first_byte_s", 0.05).containsEntry("prefill_iid", "p1").containsEntry("decode_iid", "d1")
        .as("the producer's answer counted the prompt").containsEntry("input_len", 9L);
    assertThat(r.residentDecode()).isZero();
  }

  @Test
  void roomsDifferBetweenRequests() {
    RouterFixture r = router(fleet());
    r.submitCompletion();
    r.submitCompletion();
    assertThat(room(r.call(0))).isNotEqualTo(room(r.call(2)));
  }

  @Test
  void aFailedPrefill_cancelsTheDecodeLeg_andTheClientGetsThePrefillError() {
    RouterFixture r = router(fleet());
    Client c = r.submitCompletion();
    Call decode = r.call(0);
    Call prefill = r.call(1);

    prefill.respond(500, OpenAiWire.errorBody(500, "boom"));

    assertThat(decode.cancelled()).as("the decode leg must not outlive its producer").isTrue();
    RouterError error = c.sink().error();
    assertThat(error.status()).isEqualTo(502);
    assertThat(error.type()).isEqualTo("prefill");
    assertThat(r.residentPrefill()).isZero();
    assertThat(r.residentDecode()).isZero();
  }

  @Test
  void aFailedDecode_cancelsThePrefillLeg() {
    RouterFixture r = router(fleet());
    Client c = r.submitCompletion();
    Call decode = r.call(0);
    Call prefill = r.call(1);

    decode.respond(503, OpenAiWire.errorBody(503, "busy"));

    assertThat(prefill.cancelled()).isTrue();
    assertThat(c.sink().error().type()).isEqualTo("decode");
    assertThat(r.residentPrefill()).isZero();
    assertThat(r.residentDecode()).isZero();
  }

  @Test
  void aDecodeStillWaitingForASilentProducer_isTheProducersTimeout() {
    RouterFixture r = router(fleet());
    Client c = r.submitCompletion();
    Call prefill = r.call(1);
    // The decode accepted its leg (stream head sent) and waits for the KV: only then is its
    // first-token timeout the producer's fault.
    r.call(0).sse();

    r.loop.advanceMillis(2_000);

    assertThat(prefill.cancelled()).isTrue();
    RouterError error = c.sink().error();
    assertThat(error.status()).isEqualTo(504);
    assertThat(error.type()).isEqualTo("prefill");
    assertThat(error.message()).startsWith("prefill engine p1 had not answered when decode engine d1 gave up");
    assertThat(r.row()).containsEntry("reason", "engine_timeout");
  }

  @Test
  void aRetryAfterAFailedAttempt_usesANewPairAndANewRoom() {
    RouterFixture r = router(fleet().withServing(fleet().serving().withMaxAttempts(2).withRetryBackoff(0.001, 0.001)));
    Client c = r.submitCompletion();
    long firstRoom = room(r.call(0));
    r.call(0).respond(503, OpenAiWire.errorBody(503, "busy"));
    r.loop.advanceMillis(5);

    assertThat(r.transport.calls()).hasSize(4);
    Call decode = r.call(2);
    Call prefill = r.call(3);
    assertThat(r.iidOf(decode)).isEqualTo("d2");
    assertThat(r.iidOf(prefill)).isEqualTo("p2");
    assertThat(room(decode)).isEqualTo(room(prefill)).isNotEqualTo(firstRoom);
    prefill.respond(200, "{}");
    decode.sse().event(OpenAiWire.completionToken("ok")).event("[DONE]").end();
    assertThat(c.sink().log).endsWith("complete");
  }

  @Test
  void aRendezvousTheDialectRefuses_sendsNeitherLeg() {
    RoomDialect refusing = new RoomDialect() {
      @Override
      public @Nullable String handoffProblem(KvHandoffDescriptor handoff, String consumerConnector) {
        return "no bootstrap port configured";
      }
    };
    RouterFixture r = new RouterFixture(fleet(), EngineDialects.of(refusing));
    Client c = r.submitCompletion();

    assertThat(r.transport.calls()).isEmpty();
    assertThat(c.sink().error().message()).contains("no bootstrap port configured");
    assertThat(r.residentPrefill()).isZero();
    assertThat(r.residentDecode()).isZero();
  }

  /** The test dialect's wire, with the handoff planned by the router: a room both legs carry. */
  static class RoomDialect implements EngineDialect {
    static final String NAME = "room";
    private final TestDialect openAi = new TestDialect();

    @Override
    public String name() {
      return NAME;
    }

    @Override
    public HandoffStyle handoffStyle() {
      return HandoffStyle.CONCURRENT;
    }

    @Override
    public java.util.List<String> readModels(String body) {
      return openAi.readModels(body);
    }

    @Override
    public KvHandoffDescriptor planHandoff(EngineSpec producer, long room) {
      return KvHandoffDescriptor.newBuilder().setConnector(producer.connector()).setHost(producer.url().getHost())
          .setPort(8998).setRemoteRequestId(Long.toString(room)).build();
    }

    @Override
    public @Nullable String handoffProblem(KvHandoffDescriptor handoff, String consumerConnector) {
      return handoff.getHost().isEmpty() ? "no bootstrap host" : null;
    }

    @Override
    public EngineHttpRequest prefillRequest(CompletionRequest request, KvHandoffDescriptor planned, String id) {
      return withRoom(openAi.decodeRequest(request, null, id), planned);
    }

    @Override
    public EngineHttpRequest decodeRequest(CompletionRequest request, @Nullable KvHandoffDescriptor handoff, String id) {
      EngineHttpRequest plain = openAi.decodeRequest(request, null, id);
      return handoff == null ? plain : withRoom(plain, handoff);
    }

    private static EngineHttpRequest withRoom(EngineHttpRequest http, KvHandoffDescriptor d) {
      var body = (com.fasterxml.jackson.databind.node.ObjectNode) OpenAiWire.tree(http.body());
      body.put("room", Long.parseLong(d.getRemoteRequestId())).put("bootstrap_host", d.getHost());
      return new EngineHttpRequest(http.method(), http.path(), http.headers(),
          body.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    @Override
    public EngineHttpRequest prefillRequest(CompletionRequest request, String backendRequestId) {
      throw new UnsupportedOperationException("concurrent only");
    }

    /** No descriptor: the router plans this dialect's handoff. */
    @Override
    public narwhal.spi.PrefillAnswer readPrefillAnswer(String body, String connector) {
      return new narwhal.spi.PrefillAnswer(null, narwhal.openai.AnswerUsage.promptTokens(body));
    }

    @Override
    public String transferParametersJson(KvHandoffDescriptor descriptor) {
      return "{\"room\":" + descriptor.getRemoteRequestId() + "}";
    }

    @Override
    public DecodeEventDecoder decodeEventDecoder(Route route) {
      return openAi.decodeEventDecoder(route);
    }

    @Override
    public String errorMessage(String body) {
      return openAi.errorMessage(body);
    }

    @Override
    public EngineHttpRequest healthRequest() {
      return openAi.healthRequest();
    }
  }
}
