package narwhal.adapters.kit;

import narwhal.testing.Poll;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.ResourceLeakDetector;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import narwhal.adapters.kit.ConformanceRig.Running;
import narwhal.config.EngineSpec;
import narwhal.config.FleetConfig;
import narwhal.core.checks.CheckResult;
import narwhal.netty.EventLoopScheduler;
import narwhal.engine.http.NettyEngineTransport;
import narwhal.api.FailureClass;
import narwhal.spi.Phase;
import narwhal.spi.DecodeDraft;
import narwhal.spi.EngineDialect;
import narwhal.spi.EngineHttpRequest;
import narwhal.spi.EngineDialects;
import narwhal.spi.HandoffStyle;
import narwhal.spi.MalformedEventException;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.KvHandoffDescriptor;
import narwhal.proto.v1.Route;
import narwhal.testing.LeakGuard;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The conformance suite every engine adapter passes. An adapter module extends it with one small
 * test class:
 *
 * <pre>{@code
 * class AcmeConformanceTest extends AdapterConformanceSuite {
 *   @Override
 *   protected AdapterUnderTest adapter() {
 *     return new AcmeOnItsSimulator();   // dialect, engine pair with faults, expected tokens
 *   }
 * }
 * }</pre>
 *
 * <p>Each check starts a fresh producer and consumer from the adapter, puts the real router core in
 * front of them (placement, {@code EngineClient}, the Netty transport, engine checks) and judges
 * what a client, the breaker and the engines saw. Each display name quotes the spec sentence
 * ("Backend execution and failures") the check holds the adapter to. After every check the suite
 * also verifies that nothing is left behind: no exchange running, no request still in flight on
 * either engine, no reservation held, no transport callback after an exchange ended, no engine
 * connection open once the engines stopped, and (per class) no leaked Netty buffer under paranoid
 * leak detection.
 *
 * <p>Checks that only make sense for one {@link HandoffStyle} are skipped with a JUnit assumption
 * for the other style; checks whose fault the engine cannot inject are skipped likewise.
 *
 * <p>Why one file of this size: JUnit 5 runs {@code @Nested} groups only as inner classes of the
 * class an adapter extends, and the promise to an adapter author is one subclass of one line that
 * runs every check. So every group lives here, each a small inner class (normal path, stream
 * termination, engine errors, timeouts, descriptor validation, cancellation, probes, dialect
 * contract); what they share is in {@link ConformanceRig}, {@link Verdicts} and {@link Fault}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(LeakGuard.class)
public abstract class AdapterConformanceSuite {

  static {
    // Adapter modules outside this build may not pass the parent pom's leak-detection flag.
    ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
  }

  private static final int MAX_TOKENS = 6;

  private AdapterUnderTest adapter;
  private EngineDialect dialect;
  private EventLoopGroup group;
  private NettyEngineTransport transport;
  private EventLoopScheduler loop;
  private @Nullable ConformanceRig bench;

  /** The adapter under test. Called once, before the first check. */
  protected abstract AdapterUnderTest adapter() throws Exception;

  @BeforeAll
  final void startKit() throws Exception {
    adapter = adapter();
    dialect = adapter.dialect();
    group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    transport = new NettyEngineTransport(group);
    loop = EventLoopScheduler.of(group.next());
  }

  @AfterEach
  final void checkNothingLeftBehind() {
    ConformanceRig b = bench;
    bench = null;
    if (b != null) {
      b.close();
    }
  }

  @AfterAll
  final void stopKit() {
    try {
      adapter.close();
    } finally {
      transport.close();
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  // ---------------------------------------------------------------------------------------------

  @Nested
  @DisplayName("normal path")
  public class NormalPath {

    @Test
    @DisplayName("streams exactly the engine's tokens, then [DONE]; both legs sent and decode carries the handoff"
        + " — \"Decode generates every client-visible output token\"")
    void completionStream() throws Exception {
      ConformanceRig b = bench();
      ClientOutcome o = b.run(completion(true));

      assertThat(o.completed()).as("completed with [DONE]; client saw %s", o.log()).isTrue();
      assertThat(o.tokens()).isEqualTo(expected(MAX_TOKENS));
      Verdicts.legsAndHandoff(b);
      // The row is written on the loop just after the client hears the end: wait for it.
      Poll.until(adapter.timeouts().settle(), () -> !b.journal.rows().isEmpty(), () -> "the journal row");
      assertThat(b.journal.rows()).singleElement().satisfies(row -> assertThat(row).containsEntry("terminal", "completed"));
    }

    @Test
    @DisplayName("chat completions stream exactly the engine's tokens — \"Remote decode receives the original"
        + " prompt or messages\"")
    void chatStream() throws Exception {
      ConformanceRig b = bench();
      ClientOutcome o = b.run(KitRequests.chat(adapter.model(), KitRequests.PROMPT, MAX_TOKENS, true));

      assertThat(o.completed()).as("completed; client saw %s", o.log()).isTrue();
      assertThat(o.tokens()).isEqualTo(expected(MAX_TOKENS));
      Verdicts.legsAndHandoff(b);
    }

    @Test
    @DisplayName("a non-streaming client still gets every token — \"Narwhal sends the producer a non-streaming,"
        + " one-token completion request\"; the decode leg always streams")
    void nonStreamingClient() throws Exception {
      ConformanceRig b = bench();
      ClientOutcome o = b.run(completion(false));

      assertThat(o.completed()).as("completed; client saw %s", o.log()).isTrue();
      assertThat(o.tokens()).isEqualTo(expected(MAX_TOKENS));
      Verdicts.legsAndHandoff(b);
    }

    @Test
    @DisplayName("eight requests at once each get their own exact tokens on their own legs — \"Decode generates"
        + " every client-visible output token\"")
    void concurrentRequests() throws Exception {
      ConformanceRig b = bench();
      List<Running> running = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        running.add(b.submit(KitRequests.completion(adapter.model(), prompt(i), MAX_TOKENS, true)));
      }
      for (int i = 0; i < running.size(); i++) {
        ClientOutcome o = b.await(running.get(i));
        assertThat(o.completed()).as("request %d completed; client saw %s", i, o.log()).isTrue();
        assertThat(o.tokens()).as("request %d", i).isEqualTo(adapter.expectedTokens(prompt(i), MAX_TOKENS));
      }
      assertThat(b.legsTo(b.producer)).hasSize(8);
      assertThat(b.legsTo(b.consumer)).hasSize(8);
    }

    private String prompt(int i) {
      return KitRequests.PROMPT + " number " + i;
    }
  }

  @Nested
  @DisplayName("stream termination")
  public class StreamTermination {

    @ParameterizedTest(name = "after {0} tokens")
    @ValueSource(ints = {0, 2})
    @DisplayName("a stream closed before [DONE] is a stream failure — \"Closing the stream before [DONE] is an"
        + " engine failure\"")
    void eofBeforeDone(int tokens) throws Exception {
      ConformanceRig b = bench(Fault.eofAfter(tokens));
      ClientOutcome o = b.run(completion(true));

      assertThat(o.tokens()).isEqualTo(expected(tokens));
      assertThat(o.started()).as("output committed").isEqualTo(tokens > 0);
      Verdicts.failed(b, o, Phase.DECODE, 502, FailureClass.STREAM, "before [DONE]");
    }

    @Test
    @DisplayName("[DONE] before any token is a 502 — \"Receiving [DONE] before the first generated token returns"
        + " HTTP 502 with: stream ended with [DONE] before any token arrived\"")
    void doneBeforeAnyToken() throws Exception {
      ConformanceRig b = bench(Fault.doneBeforeAnyToken());
      ClientOutcome o = b.run(completion(true));

      Verdicts.noOutput(o);
      assertThat(o.requireError().message()).startsWith("stream ended with [DONE] before any token arrived");
      Verdicts.failed(b, o, Phase.DECODE, 502, FailureClass.STREAM, "");
    }

    @ParameterizedTest(name = "code {1} after {0} tokens")
    @CsvSource({"0, 429, OVERLOAD", "2, 500, INFERENCE_STATUS", "2, 400, REJECTED"})
    @DisplayName("an error object in a 200 stream keeps its own status — \"An error object carried inside an"
        + " upstream HTTP 200 stream propagates with the error object's own status\"")
    void errorObjectInStream(int tokens, int code, FailureClass failureClass) throws Exception {
      Fault fault = Fault.errorEventAfter(tokens, code);
      ConformanceRig b = bench(fault);
      ClientOutcome o = b.run(completion(true));

      assertThat(o.tokens()).isEqualTo(expected(tokens));
      Verdicts.failed(b, o, Phase.DECODE, code, failureClass, fault.message());
    }

    @Test
    @DisplayName("a connection reset mid-stream is a connection failure after the tokens already sent — \"other"
        + " engine faults [map] to HTTP 502\"")
    void resetMidStream() throws Exception {
      ConformanceRig b = bench(Fault.resetAfter(2));
      ClientOutcome o = b.run(completion(true));

      assertThat(o.tokens()).isEqualTo(expected(2));
      Verdicts.failed(b, o, Phase.DECODE, 502, FailureClass.CONNECTION, "");
    }
  }

  @Nested
  @DisplayName("engine errors")
  public class EngineErrors {

    @ParameterizedTest(name = "{0} answers HTTP {1} -> client {2}, {3}")
    @CsvSource({
        "PREFILL, 500, 502, INFERENCE_STATUS", "PREFILL, 503, 502, OVERLOAD", "PREFILL, 429, 502, OVERLOAD",
        "PREFILL, 408, 504, OVERLOAD", "PREFILL, 504, 504, TIMEOUT", "PREFILL, 400, 400, REJECTED",
        "DECODE, 500, 502, INFERENCE_STATUS", "DECODE, 503, 502, OVERLOAD", "DECODE, 429, 502, OVERLOAD",
        "DECODE, 408, 504, OVERLOAD", "DECODE, 504, 504, TIMEOUT", "DECODE, 400, 400, REJECTED"})
    @DisplayName("an engine's HTTP error becomes the client's error with the engine's message — \"Narwhal maps"
        + " timeout-shaped engine faults to HTTP 504 and other engine faults to HTTP 502\"")
    void httpStatus(Phase phase, int engineStatus, int clientStatus, FailureClass failureClass) throws Exception {
      Fault fault = Fault.status(phase, engineStatus);
      ConformanceRig b = phase == Phase.PREFILL ? prefillFault(fault) : bench(fault);
      ClientOutcome o = b.run(completion(true));

      Verdicts.noOutput(o);
      Verdicts.failed(b, o, phase, clientStatus, failureClass, fault.message());
      if (phase == Phase.PREFILL) {
        Verdicts.noDecodeUnlessConcurrent(b);
      }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Phase.class)
    @DisplayName("an engine that drops the connection unanswered is a connection failure — \"other engine faults"
        + " [map] to HTTP 502\"")
    void closedOnReceipt(Phase phase) throws Exception {
      Fault fault = Fault.closeOnReceipt(phase);
      ConformanceRig b = phase == Phase.PREFILL ? prefillFault(fault) : bench(fault);
      ClientOutcome o = b.run(completion(true));

      Verdicts.noOutput(o);
      Verdicts.failed(b, o, phase, 502, FailureClass.CONNECTION, "");
    }

    @Test
    @DisplayName("an unreachable producer is a connection failure and no decode is sent — \"Prefill finishes before"
        + " client streaming begins, so prefill failures can be returned as ordinary HTTP errors\"")
    void unreachableProducer() throws Exception {
      URI closed = EngineSpecs.closedPort();
      ConformanceRig b = bench(holdDecodeIfConcurrent(List.of()), p -> EngineSpecs.withUrl(p, closed), UnaryOperator.identity(),
          UnaryOperator.identity());
      ClientOutcome o = b.run(completion(true));

      Verdicts.noOutput(o);
      Verdicts.failed(b, o, Phase.PREFILL, 502, FailureClass.CONNECTION, "refused the connection");
      Verdicts.noDecodeUnlessConcurrent(b);
    }
  }

  @Nested
  @DisplayName("timeouts")
  public class Timeouts {

    @Test
    @DisplayName("no first token in time is a 504 — \"engine.first_token_timeout_s starts before opening the decode"
        + " HTTP stream and ends at the first generated token\"")
    void silentBeforeFirstToken() throws Exception {
      ConformanceRig b = bench(Fault.silenceBeforeFirstToken());
      ClientOutcome o = b.run(completion(true));

      Verdicts.noOutput(o);
      Verdicts.failed(b, o, Phase.DECODE, 504, FailureClass.STREAM, "no first token within");
    }

    @Test
    @DisplayName("a slow response head spends the first-token budget — \"Connection and response-header delays"
        + " consume the same budget\"")
    void slowHeadersSpendFirstTokenBudget() throws Exception {
      // Concurrent legs: the producer cannot answer before its consumer has joined the rendezvous
      // (SGLang's prefill hands its KV cache to the decode before it answers), so a consumer that
      // holds its head back holds the producer too, and the kit's shorter prefill limit would fire
      // first and time the wrong leg. The sentence under test is about the decode's first-token
      // budget ("engine.first_token_timeout_s starts before opening the decode HTTP stream"), which
      // the spec does not rank against serving.prefill_timeout_s: make it the binding limit here.
      UnaryOperator<FleetConfig> firstTokenBinds = dialect.handoffStyle() == HandoffStyle.CONCURRENT
          ? c -> c.withServing(c.serving().withPrefillTimeoutS(c.serving().requestTimeoutS()))
          : UnaryOperator.identity();
      ConformanceRig b = bench(List.of(Fault.delayHeaders(Phase.DECODE, adapter.timeouts().hold())), UnaryOperator.identity(),
          UnaryOperator.identity(), firstTokenBinds);
      ClientOutcome o = b.run(completion(true));

      Verdicts.noOutput(o);
      Verdicts.failed(b, o, Phase.DECODE, 504, FailureClass.STREAM, "no first token within");
    }

    @Test
    @DisplayName("silence after output is a 504 — \"Expiry returns HTTP 504 with detail beginning: engine went"
        + " silent between tokens\"")
    void silentMidStream() throws Exception {
      ConformanceRig b = bench(Fault.silenceAfter(2));
      ClientOutcome o = b.run(completion(true));

      assertThat(o.tokens()).isEqualTo(expected(2));
      assertThat(o.requireError().message()).startsWith("engine went silent between tokens");
      Verdicts.failed(b, o, Phase.DECODE, 504, FailureClass.STREAM, "");
    }

    @Test
    @DisplayName("metadata chunks keep a quiet stream alive — \"metadata chunks reset the timer\"")
    void metadataResetsSilenceTimer() throws Exception {
      KitTimeouts t = adapter.timeouts();
      ConformanceRig b = bench(Fault.metadataWhileSilent(2, t.decodeRead().multipliedBy(4), t.decodeRead().dividedBy(5)));
      ClientOutcome o = b.run(completion(true));

      assertThat(o.completed()).as("completed despite %d ms without tokens; client saw %s",
          t.decodeRead().multipliedBy(4).toMillis(), o.log()).isTrue();
      assertThat(o.tokens()).isEqualTo(expected(MAX_TOKENS));
    }

    @Test
    @DisplayName("a prefill that does not answer in time is a 504 — \"timeout-shaped engine faults\" map to 504")
    void prefillTimeout() throws Exception {
      ConformanceRig b = prefillFault(Fault.delayHeaders(Phase.PREFILL, adapter.timeouts().hold()));
      ClientOutcome o = b.run(completion(true));

      Verdicts.noOutput(o);
      Verdicts.failed(b, o, Phase.PREFILL, 504, FailureClass.TIMEOUT, "");
      Verdicts.noDecodeUnlessConcurrent(b);
    }
  }

  @Nested
  @DisplayName("descriptor validation")
  public class DescriptorValidation {

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Fault.Kind.class, names = "DESCRIPTOR_.*", mode = EnumSource.Mode.MATCH_ALL)
    @DisplayName("an unusable producer descriptor fails as kv_handoff and no decode is sent — \"Narwhal validates"
        + " the descriptor before making the decode HTTP request\"")
    void unusableDescriptor(Fault.Kind kind) throws Exception {
      assumeTrue(dialect.handoffStyle() == HandoffStyle.SEQUENTIAL,
          "a concurrent handoff reads no descriptor from the producer");
      ConformanceRig b = bench(Fault.descriptor(kind));
      ClientOutcome o = b.run(completion(true));

      Verdicts.noOutput(o);
      Verdicts.failed(b, o, Phase.PREFILL, 502, FailureClass.KV_HANDOFF, "unusable KV handoff");
      assertThat(b.legsTo(b.consumer)).as("decode legs sent").isEmpty();
    }

    @Test
    @DisplayName("a handoff for another connector is rejected before the consumer is asked — \"It rejects:"
        + " connector mismatch\"")
    void connectorMismatch() throws Exception {
      ConformanceRig b = bench(List.of(), UnaryOperator.identity(), c -> EngineSpecs.withConnector(c, c.connector() + "-kit-mismatch"),
          UnaryOperator.identity());
      ClientOutcome o = b.run(completion(true));

      Verdicts.noOutput(o);
      Verdicts.failed(b, o, Phase.PREFILL, 502, FailureClass.KV_HANDOFF, "unusable KV handoff");
      assertThat(b.legsTo(b.consumer)).as("decode legs sent").isEmpty();
      if (b.concurrent()) {
        assertThat(b.legsTo(b.producer)).as("a refused rendezvous sends no leg at all").isEmpty();
      }
    }
  }

  @Nested
  @DisplayName("cancellation")
  public class Cancellation {

    @Test
    @DisplayName("a client that goes away mid-stream closes the engine stream — \"The original client request owns:"
        + " cleanup\"")
    void cancelMidStream() throws Exception {
      // No read bound: the engine stays silent after two tokens until the client leaves.
      ConformanceRig b = bench(List.of(Fault.silenceAfter(2)), UnaryOperator.identity(), UnaryOperator.identity(),
          c -> c.withEngine(c.engine().withDecodeReadTimeoutS(0)));
      Running r = b.submit(completion(true));
      b.awaitTokens(r, 2);

      b.cancel(r);

      assertCancelled(b, r);
      assertThat(r.sink().outcome().tokens()).isEqualTo(expected(2));
      assertThat(b.legsTo(b.consumer)).singleElement().satisfies(e -> assertThat(e.cancelled()).isTrue());
      Poll.until(adapter.timeouts().settle(), () -> b.pair.consumer().aborted() >= 1,
          () -> "the consumer engine to see its stream abandoned");
    }

    @Test
    @DisplayName("a client that goes away before output abandons every running leg — \"The original client request"
        + " owns: cleanup\"")
    void cancelBeforeOutput() throws Exception {
      List<Fault> faults = holdDecodeIfConcurrent(List.of(Fault.delayHeaders(Phase.PREFILL, adapter.timeouts().hold())));
      ConformanceRig b = bench(faults, UnaryOperator.identity(), UnaryOperator.identity(), Cancellation::noLegTimeouts);
      Running r = b.submit(completion(true));
      Poll.until(adapter.timeouts().settle(),
          () -> b.pair.producer().inFlight() > 0 && (!b.concurrent() || b.pair.consumer().inFlight() > 0),
          () -> "every leg to reach its engine");

      b.cancel(r);

      assertCancelled(b, r);
      assertThat(r.sink().outcome().log()).as("client calls").isEmpty();
      assertThat(b.legsTo(b.producer)).singleElement().satisfies(e -> assertThat(e.cancelled()).isTrue());
      if (b.concurrent()) {
        assertThat(b.legsTo(b.consumer)).singleElement().satisfies(e -> assertThat(e.cancelled()).isTrue());
      } else {
        assertThat(b.legsTo(b.consumer)).as("decode legs sent before the prefill answered").isEmpty();
      }
    }

    @Test
    @DisplayName("concurrent legs: a failing decode cancels its prefill sibling — \"cancels the sibling leg when"
        + " either fails, so no leg ever outlives the other\" (the concurrent-handoff rule)")
    void failingDecodeCancelsPrefill() throws Exception {
      assumeConcurrent();
      Fault fault = Fault.status(Phase.DECODE, 500);
      ConformanceRig b = bench(List.of(Fault.delayHeaders(Phase.PREFILL, adapter.timeouts().hold()), fault),
          UnaryOperator.identity(), UnaryOperator.identity(), Cancellation::noLegTimeouts);
      ClientOutcome o = b.run(completion(true));

      Verdicts.failed(b, o, Phase.DECODE, 502, FailureClass.INFERENCE_STATUS, fault.message());
      b.awaitQuiet();
      assertThat(b.legsTo(b.producer)).singleElement().satisfies(e -> assertThat(e.cancelled()).isTrue());
    }

    @Test
    @DisplayName("concurrent legs: a failing prefill cancels its decode sibling — \"cancels the sibling leg when"
        + " either fails, so no leg ever outlives the other\" (the concurrent-handoff rule)")
    void failingPrefillCancelsDecode() throws Exception {
      assumeConcurrent();
      Fault fault = Fault.status(Phase.PREFILL, 500);
      ConformanceRig b = bench(List.of(fault, Fault.delayHeaders(Phase.DECODE, adapter.timeouts().hold())),
          UnaryOperator.identity(), UnaryOperator.identity(), Cancellation::noLegTimeouts);
      ClientOutcome o = b.run(completion(true));

      Verdicts.failed(b, o, Phase.PREFILL, 502, FailureClass.INFERENCE_STATUS, fault.message());
      b.awaitQuiet();
      assertThat(b.legsTo(b.consumer)).singleElement().satisfies(e -> assertThat(e.cancelled()).isTrue());
    }

    /** Leg timers out of the way, so only the client (or a sibling) can end a held leg. */
    private static FleetConfig noLegTimeouts(FleetConfig c) {
      double long_ = c.serving().requestTimeoutS();
      return c.withServing(c.serving().withPrefillTimeoutS(long_))
          .withEngine(c.engine().withFirstTokenTimeoutS(long_));
    }

    private void assertCancelled(ConformanceRig b, Running r) {
      Poll.until(adapter.timeouts().settle(), () -> !b.journal.rows().isEmpty(), () -> "the journal row");
      assertThat(b.journal.rows()).singleElement()
          .satisfies(row -> assertThat(row).containsEntry("terminal", "cancelled"));
      b.awaitQuiet();
      ClientOutcome o = r.sink().outcome();
      assertThat(o.completed()).as("completed after cancel").isFalse();
      assertThat(o.error()).as("error after cancel").isNull();
    }
  }

  @Nested
  @DisplayName("probe support")
  public class Probes {

    @Test
    @DisplayName("health, model list and a KV transfer pass on a healthy pair — \"Preflight validates the pinned"
        + " engine contract and probes role-permitted KV transfers\"")
    void healthyPairPasses() throws Exception {
      ConformanceRig b = bench();

      assertPassed(b.check((c, l) -> c.health(b.producer, l)));
      assertPassed(b.check((c, l) -> c.health(b.consumer, l)));
      assertPassed(b.check((c, l) -> c.servesModel(b.producer, l)));
      assertPassed(b.check((c, l) -> c.servesModel(b.consumer, l)));
      assertPassed(b.check((c, l) -> c.kvTransfer(b.producer, b.consumer, l)));
    }

    @Test
    @DisplayName("a dead consumer fails its health check and the KV transfer, blamed on the consumer — \"readmit an"
        + " ejected engine after a successful check\" needs checks that fail the right engine")
    void deadConsumerIsBlamed() throws Exception {
      ConformanceRig b = bench(Fault.dead(Phase.DECODE));

      assertPassed(b.check((c, l) -> c.health(b.producer, l)));
      CheckResult health = b.check((c, l) -> c.health(b.consumer, l));
      assertThat(health.failed()).as("consumer health: %s", health).isTrue();
      assertThat(health.failedIid()).isEqualTo(b.consumer.iid());
      CheckResult transfer = b.check((c, l) -> c.kvTransfer(b.producer, b.consumer, l));
      assertThat(transfer.failed()).as("kv transfer: %s", transfer).isTrue();
      assertThat(transfer.failedIid()).isEqualTo(b.consumer.iid());
      assertThat(transfer.failedPhase()).isEqualTo(Phase.DECODE);
      assertThat(transfer.outcomeFor(b.producer.iid())).isEqualTo(CheckResult.Outcome.INCONCLUSIVE);
    }

    @Test
    @DisplayName("a failing producer fails the KV transfer, blamed on it and inconclusive for the consumer —"
        + " \"Inconclusive probes return to the normal readmission cadence\"")
    void failingProducerIsBlamed() throws Exception {
      ConformanceRig b = prefillFault(Fault.status(Phase.PREFILL, 500));

      CheckResult transfer = b.check((c, l) -> c.kvTransfer(b.producer, b.consumer, l));
      assertThat(transfer.failed()).as("kv transfer: %s", transfer).isTrue();
      assertThat(transfer.failedIid()).isEqualTo(b.producer.iid());
      assertThat(transfer.failedPhase()).isEqualTo(Phase.PREFILL);
      assertThat(transfer.outcomeFor(b.consumer.iid())).isEqualTo(CheckResult.Outcome.INCONCLUSIVE);
    }

    private void assertPassed(CheckResult r) {
      assertThat(r.passed()).as("%s", r).isTrue();
    }
  }

  @Nested
  @DisplayName("prompt counting (optional: a dialect may have no tokenize route)")
  public class PromptCounting {

    @Test
    @DisplayName("a dialect with a tokenize route gets the engine's count, asked of a priced producer before"
        + " the prefill leg, and the request is priced and journalled with it as exact")
    void countedByTheEngine() throws Exception {
      assumeTrue(dialect.tokenizeRequest(completion(true), "kit") != null,
          dialect.name() + " has no tokenize route: prompts are estimated from engine.chars_per_token");
      ConformanceRig b = bench();

      long few = b.count(b.producer, KitRequests.completion(adapter.model(), "a few words", MAX_TOKENS, true));
      long exact = b.count(b.producer, completion(true));
      long twice = b.count(b.producer,
          KitRequests.completion(adapter.model(), KitRequests.PROMPT + " " + KitRequests.PROMPT, MAX_TOKENS, true));
      long chat = b.count(b.producer, KitRequests.chat(adapter.model(), KitRequests.PROMPT, MAX_TOKENS, true));
      assertThat(few).isPositive().isLessThan(exact);
      assertThat(twice).isGreaterThan(exact);
      assertThat(chat).as("the chat template's tokens count too").isGreaterThanOrEqualTo(exact);

      // How a request ends is the other groups' concern (a cold JVM's first request may even miss
      // the kit's short first-token limit); its row says how its prompt was sized. The router
      // counts only where something prices with the count: unpriced, the engine is not asked, and
      // the row takes the producer's own count from its prefill answer.
      int countsBefore = countsTo(b);
      b.run(completion(true));
      assertThat(countsTo(b)).as("an unpriced request is not counted").isEqualTo(countsBefore);
      assertThat(journalRow(b, 1)).containsEntry("input_sized", "estimated")
          .as("the producer's prefill answer reports the prompt's size").containsEntry("input_len", exact);

      b.profileProducer();
      b.run(completion(true));
      assertThat(journalRow(b, 2)).containsEntry("input_sized", "exact").containsEntry("input_len", exact);
      List<RecordedExchange> toProducer = b.transport.to(b.producer);
      RecordedExchange lastCount = toProducer.stream().filter(e -> b.isCount(e.request())).reduce((x, y) -> y)
          .orElseThrow();
      assertThat(toProducer.indexOf(lastCount)).as("the request's count came before its prefill leg")
          .isLessThan(toProducer.indexOf(b.legsTo(b.producer).get(1)));
    }

    private int countsTo(ConformanceRig b) {
      return (int) b.transport.to(b.producer).stream().filter(e -> b.isCount(e.request())).count();
    }

    @Test
    @DisplayName("a dialect without one declines every prompt shape, and its requests are estimated")
    void noTokenizeRoute() throws Exception {
      assumeTrue(dialect.tokenizeRequest(completion(true), "kit") == null,
          dialect.name() + " counts prompts with its engines");
      assertThat(dialect.tokenizeRequest(KitRequests.chat(adapter.model(), KitRequests.PROMPT, MAX_TOKENS, true),
          "kit")).isNull();
      ConformanceRig b = bench();

      b.run(completion(true));

      assertThat(b.transport.to(b.producer)).as("nothing but legs").isEqualTo(b.legsTo(b.producer));
      assertThat(journalRow(b)).containsEntry("input_sized", "estimated");
    }

    /** The one request's journal row, which is written just after its client hears the end. */
    private Map<String, Object> journalRow(ConformanceRig b) {
      return journalRow(b, 1);
    }

    /** The {@code n}th request's journal row (1 = the first). */
    private Map<String, Object> journalRow(ConformanceRig b, int n) {
      Poll.until(adapter.timeouts().settle(), () -> b.journal.rows().size() >= n,
          () -> "request " + n + "'s journal row");
      return b.journal.rows().get(n - 1);
    }
  }

  @Nested
  @DisplayName("dialect contract")
  public class DialectContract {

    @Test
    @DisplayName("the dialect is registered in META-INF/services under its name (engine.dialect selects it)")
    void registeredForServiceLoader() {
      assertThat(dialect.name()).isNotBlank();
      assertThat(EngineDialects.discover().names()).as("dialects on the class path").contains(dialect.name());
      assertThat(EngineDialects.discover().get(dialect.name())).isInstanceOf(dialect.getClass());
    }

    @Test
    @DisplayName("the adapter's engines are configured the way the dialect asks")
    void enginesNeedNoFurtherConfiguration() throws Exception {
      ConformanceRig b = bench();

      for (EngineSpec engine : List.of(b.producer, b.consumer)) {
        assertThat(engine.dialect()).as("%s dialect", engine.iid()).isEqualTo(dialect.name());
        assertThat(dialect.configurationProblems(engine)).as("%s configuration problems", engine.iid()).isEmpty();
      }
    }

    @Test
    @DisplayName("same-engine decode carries no handoff — \"For same-worker decode, Narwhal removes transfer"
        + " parameters\"")
    void sameEngineDecodeCarriesNoHandoff() {
      assertThat(adapter.handoffCarriedBy(dialect.decodeRequest(completion(true), null, "kit-same-engine"))).isNull();
    }

    @Test
    @DisplayName("a decode request drafted ahead completes to exactly the decode request, with and without a handoff,"
        + " and completing leaves the draft as it was")
    void draftedDecodeIsTheDecodeRequest() throws Exception {
      ConformanceRig b = bench();
      KvHandoffDescriptor handoff = dialect.handoffStyle() == HandoffStyle.CONCURRENT
          ? dialect.planHandoff(b.producer, 7)
          : KvHandoffDescriptor.newBuilder().setConnector(b.producer.connector()).setEngineId("kit-producer")
              .addBlockIds(1).addBlockIds(2).setHost("127.0.0.1").setPort(5600).build();

      for (CompletionRequest request : List.of(completion(true), completion(false))) {
        DecodeDraft draft = dialect.draftDecodeRequest(request);
        for (KvHandoffDescriptor h : Arrays.asList(handoff, null, handoff)) {
          EngineHttpRequest built = dialect.decodeRequest(request, h, "kit-draft");
          EngineHttpRequest completed = draft.complete(h, "kit-draft");
          String what = (request.getStream() ? "streaming" : "non-streaming") + (h == null ? ", no handoff" : ", handoff");
          assertThat(completed.method()).as(what).isEqualTo(built.method());
          assertThat(completed.path()).as(what).isEqualTo(built.path());
          assertThat(completed.headers()).as(what).isEqualTo(built.headers());
          assertThat(new String(completed.body(), StandardCharsets.UTF_8)).as(what)
              .isEqualTo(new String(built.body(), StandardCharsets.UTF_8));
        }
      }
    }

    @Test
    @DisplayName("an empty descriptor is rejected — \"It rejects: missing engine identity\"")
    void emptyDescriptorIsRejected() throws Exception {
      ConformanceRig b = bench();

      assertThat(dialect.handoffProblem(KvHandoffDescriptor.getDefaultInstance(), b.consumer.connector()))
          .as("problem with an empty descriptor").isNotBlank();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Route.class, names = {"ROUTE_COMPLETIONS", "ROUTE_CHAT_COMPLETIONS"})
    @DisplayName("the stream decoder knows [DONE] and refuses what it cannot read — \"A valid engine stream"
        + " contains generated output, then data: [DONE]\"")
    void streamDecoderEnds(Route route) throws Exception {
      assertThat(dialect.decodeEventDecoder(route).decode("[DONE]").hasDone()).isTrue();
      assertThatThrownBy(() -> dialect.decodeEventDecoder(route).decode("\u0001 not an event of any dialect {"))
          .isInstanceOf(MalformedEventException.class);
    }

    @Test
    @DisplayName("an empty error body has no message")
    void emptyErrorBody() {
      assertThat(dialect.errorMessage("")).isEmpty();
    }
  }

  // ---------------------------------------------------------------------------------------------

  private ConformanceRig bench(Fault... faults) throws Exception {
    return bench(List.of(faults), UnaryOperator.identity(), UnaryOperator.identity(), UnaryOperator.identity());
  }

  private ConformanceRig bench(List<Fault> faults, UnaryOperator<EngineSpec> producer, UnaryOperator<EngineSpec> consumer,
      UnaryOperator<FleetConfig> config) throws Exception {
    assertThat(bench).as("one engine pair per check").isNull();
    bench = ConformanceRig.start(adapter, transport, loop, faults, producer, consumer, config);
    return bench;
  }

  /**
   * A fault on the producer. When the legs run concurrently the consumer is held back as well, so
   * its leg is still running when the producer fails: the cleanup check then proves it was
   * cancelled with its sibling rather than left to run.
   */
  private ConformanceRig prefillFault(Fault fault) throws Exception {
    return bench(holdDecodeIfConcurrent(List.of(fault)), UnaryOperator.identity(), UnaryOperator.identity(),
        UnaryOperator.identity());
  }

  private List<Fault> holdDecodeIfConcurrent(List<Fault> faults) {
    if (dialect.handoffStyle() != HandoffStyle.CONCURRENT) {
      return faults;
    }
    List<Fault> all = new ArrayList<>(faults);
    all.add(Fault.delayHeaders(Phase.DECODE, adapter.timeouts().hold()));
    return all;
  }

  private void assumeConcurrent() {
    assumeTrue(dialect.handoffStyle() == HandoffStyle.CONCURRENT,
        "sibling cancellation concerns concurrent handoffs; " + dialect.name() + " runs its legs in sequence");
  }

  private CompletionRequest completion(boolean stream) {
    return KitRequests.completion(adapter.model(), KitRequests.PROMPT, MAX_TOKENS, stream);
  }

  private List<String> expected(int tokens) {
    return adapter.expectedTokens(KitRequests.PROMPT, MAX_TOKENS).subList(0, tokens);
  }
}
