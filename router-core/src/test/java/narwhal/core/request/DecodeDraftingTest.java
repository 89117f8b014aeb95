package narwhal.core.request;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import narwhal.core.request.RouterFixture.Client;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.KvHandoffDescriptor;
import narwhal.spi.DecodeDraft;
import narwhal.spi.EngineDialect;
import narwhal.spi.EngineDialects;
import narwhal.spi.EngineHttpRequest;
import narwhal.testing.ForwardingDialect;
import narwhal.testing.OpenAiWire;
import narwhal.testing.ScriptedTransport;
import narwhal.testing.ScriptedTransport.Call;
import narwhal.testing.TestDialect;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The decode request is drafted while the prefill leg runs ({@link EngineDialect#draftDecodeRequest}),
 * so that between the prefill answer and the decode request only the handoff is added; on a
 * manual clock with the test playing the engines, the dialect counting its drafts.
 */
class DecodeDraftingTest {

  @Test
  void theDraftIsMadeWhileThePrefillRuns_andCompletedWithTheHandoffWhenItAnswers() throws Exception {
    DraftCountingDialect dialect = new DraftCountingDialect("test");
    RouterFixture r = new RouterFixture(RouterFixture.twoByTwo(), EngineDialects.of(dialect));
    dialect.transport = r.transport;
    Client c = r.submitCompletion();

    assertThat(r.transport.calls()).as("only the prefill leg is out").hasSize(1);
    assertThat(dialect.draftedAfterCalls).as("drafted once the prefill request was out").containsExactly(1);
    assertThat(dialect.completions).isZero();

    r.prefillOk(r.call(0));
    Call decode = r.call(1);
    assertThat(dialect.completions).isEqualTo(1);
    assertThat(dialect.draftedAfterCalls).as("no second draft for the decode leg").hasSize(1);
    assertThat(OpenAiWire.tree(decode.body()).path(TestDialect.HANDOFF).path("engine_id").asText())
        .isEqualTo("engine-p1");
    KvHandoffDescriptor handoff = new TestDialect().readPrefillAnswer(
        narwhal.testing.TestDialectWire.prefillResponseFrom("engine-p1"), r.config.engines().get(0).connector()).handoff();
    assertThat(decode.body()).isEqualTo(new String(
        new TestDialect().decodeRequest(r.completionRequest(), handoff, RouterFixture.backendId(decode)).body(),
        StandardCharsets.UTF_8));

    decode.sse().event(OpenAiWire.completionToken("a")).event("[DONE]").end();
    assertThat(c.sink().log).containsExactly("start", "token:a", "complete");
  }

  @Test
  void aRetryAfterAFailedPrefill_reusesTheDraft() {
    DraftCountingDialect dialect = new DraftCountingDialect("test");
    RouterFixture r = new RouterFixture(RouterFixture.twoByTwo(s -> s.withMaxAttempts(2)), EngineDialects.of(dialect));
    dialect.transport = r.transport;
    Client c = r.submitCompletion();
    r.call(0).respond(503, OpenAiWire.errorBody(503, "busy"));
    r.loop.advanceMillis(1_000);
    assertThat(r.transport.calls()).as("the retried prefill").hasSize(2);

    r.prefillOk(r.call(1));
    r.call(2).sse().event(OpenAiWire.completionToken("a")).event("[DONE]").end();

    assertThat(c.sink().log).containsExactly("start", "token:a", "complete");
    assertThat(dialect.draftedAfterCalls).as("one draft for both attempts").hasSize(1);
    assertThat(dialect.completions).isEqualTo(1);
  }

  @Test
  void aRetryAfterASentDecodeLeg_draftsAgain_forTheDraftIsLetGoOnceTheLegIsSent() {
    DraftCountingDialect dialect = new DraftCountingDialect("test");
    RouterFixture r = new RouterFixture(RouterFixture.twoByTwo(s -> s.withMaxAttempts(2)), EngineDialects.of(dialect));
    dialect.transport = r.transport;
    Client c = r.submitCompletion();
    r.prefillOk(r.call(0));
    r.call(1).respond(503, OpenAiWire.errorBody(503, "busy"));
    r.loop.advanceMillis(1_000);
    assertThat(r.transport.calls()).as("the retried prefill").hasSize(3);

    r.prefillOk(r.call(2));
    r.call(3).sse().event(OpenAiWire.completionToken("a")).event("[DONE]").end();

    assertThat(c.sink().log).containsExactly("start", "token:a", "complete");
    assertThat(dialect.draftedAfterCalls).as("drafted for each attempt's prefill").containsExactly(1, 3);
    assertThat(dialect.completions).isEqualTo(2);
  }

  @Test
  void aNonStreamingClient_hasAStreamingDecodeLegDrafted() {
    DraftCountingDialect dialect = new DraftCountingDialect("test");
    RouterFixture r = new RouterFixture(RouterFixture.twoByTwo(), EngineDialects.of(dialect));
    dialect.transport = r.transport;
    r.submit(OpenAiWire.completions("{\"model\":\"m\",\"prompt\":\"hello\",\"max_tokens\":8}"));
    r.prefillOk(r.call(0));

    assertThat(OpenAiWire.tree(r.call(1).body()).path("stream").asBoolean()).isTrue();
    assertThat(OpenAiWire.tree(r.call(1).body()).path("stream_options").path("include_usage").asBoolean()).isTrue();
    assertThat(dialect.draftedAfterCalls).hasSize(1);
  }

  /** The test dialect's wire under another name, counting drafts and completed drafts. */
  @Test
  void anUnusableDescriptor_isRefusedBeforeAnythingIsRenderedFromIt() throws Exception {
    DraftCountingDialect dialect = new DraftCountingDialect("test") {
      @Override
      public @Nullable String handoffProblem(KvHandoffDescriptor handoff, String consumerConnector) {
        return "no block ids";
      }
    };
    RouterFixture r = new RouterFixture(RouterFixture.twoByTwo(), EngineDialects.of(dialect));
    dialect.transport = r.transport;
    Client c = r.submitCompletion();

    r.prefillOk(r.call(0));

    assertThat(dialect.completions).as("the decode request was never rendered").isZero();
    assertThat(r.transport.calls()).as("no decode leg was sent").hasSize(1);
    assertThat(c.sink().error().message()).contains("unusable KV handoff", "no block ids");
  }

  private static class DraftCountingDialect extends ForwardingDialect {
    private final String name;
    /** For each draft, how many requests the transport had been asked for when it was made. */
    final List<Integer> draftedAfterCalls = new ArrayList<>();
    int completions;
    /** The fixture's transport, set once the fixture exists. */
    ScriptedTransport transport;

    DraftCountingDialect(String name) {
      super(new TestDialect());
      this.name = name;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public DecodeDraft draftDecodeRequest(CompletionRequest request) {
      draftedAfterCalls.add(transport.calls().size());
      DecodeDraft draft = super.draftDecodeRequest(request);
      return (handoff, id) -> {
        completions++;
        return draft.complete(handoff, id);
      };
    }

    @Override
    public EngineHttpRequest decodeRequest(
        CompletionRequest request, @Nullable KvHandoffDescriptor handoff, String backendRequestId) {
      throw new AssertionError("the core decodes from a draft");
    }
  }
}
