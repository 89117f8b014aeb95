package narwhal.core.profile.measure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongUnaryOperator;
import narwhal.config.EngineRole;
import narwhal.config.EngineSpec;
import narwhal.core.legs.EngineClient;
import narwhal.core.legs.LegLimits;
import narwhal.core.profile.DecodeModel;
import narwhal.core.profile.EngineGeneration;
import narwhal.core.profile.PrefillModel;
import narwhal.core.profile.ProfileRow;
import narwhal.spi.EngineDialects;
import narwhal.spi.ExchangeOptions;
import narwhal.testing.OpenAiWire;
import narwhal.testing.ScriptedTransport;
import narwhal.testing.ScriptedTransport.Call;
import narwhal.testing.TestDialect;
import narwhal.testing.TestDialectWire;
import narwhal.testing.ManualScheduler;
import org.junit.jupiter.api.Test;

/**
 * The whole measurement on a manual clock: the test plays an engine whose prefill time and decode
 * interval follow known models exactly, and the profile recovers them.
 */
class EngineProfilerTest {

  private static final EngineSpec ENGINE = TestDialect.engine("e0", "http://10.0.0.9:8000", EngineRole.BOTH);
  private static final ExchangeOptions EXCHANGE = new ExchangeOptions(Duration.ofSeconds(1), 1 << 24);
  private static final Instant NOW = Instant.parse("2026-12-02T10:00:00Z");

  private final ManualScheduler loop = new ManualScheduler();
  private final ScriptedTransport transport = new ScriptedTransport();
  private final List<EngineGeneration> generations = new ArrayList<>(List.of(EngineGeneration.known("7")));
  private final EngineProfiler profiler = new EngineProfiler(
      new EngineClient(transport, EngineDialects.of(new TestDialect())),
      (engine, l) -> CompletableFuture.completedFuture(generations.size() > 1 ? generations.remove(0) : generations.get(0)),
      new EngineProfiler.Settings("m", new LegLimits(TimeUnit.SECONDS.toNanos(60), 0, EXCHANGE),
          new LegLimits(TimeUnit.SECONDS.toNanos(60), TimeUnit.SECONDS.toNanos(60), EXCHANGE), 0.05, 0.13),
      loop, Clock.fixed(NOW, ZoneOffset.UTC));

  private static final ProfilingPlan PLAN = new ProfilingPlan(List.of(32L, 64L, 128L, 256L, 512L, 1024L, 2048L, 4096L),
      3, List.of(1, 2, 4, 8), List.of(32L, 512L), 16, TimeUnit.HOURS.toNanos(1));

  /** The decode interval of a batch holding resident tokens in k streams. */
  private interface Interval {
    double seconds(long residentTokens, int sequences);
  }

  /** A scripted engine: prefill and decode timing from models, answered in lockstep on the manual clock. */
  private final class Engine {
    private final PrefillModel prefill;
    private final Interval decode;
    private final LongUnaryOperator prefillStatus;
    private int answered;
    final List<Integer> batchSizes = new ArrayList<>();

    Engine(PrefillModel prefill, Interval decode, LongUnaryOperator prefillStatus) {
      this.prefill = prefill;
      this.decode = decode;
      this.prefillStatus = prefillStatus;
    }

    EngineMeasurement serve(CompletableFuture<EngineMeasurement> measured) {
      while (!measured.isDone()) {
        assertThat(transport.calls()).as("the profiler waits on a request").hasSizeGreaterThan(answered);
        Call call = transport.calls().get(answered);
        JsonNode body = OpenAiWire.tree(call.body());
        long tokens = body.path("prompt").size();
        if (body.has(TestDialect.HANDOFF)) {
          loop.advance(nanos(prefill.seconds(tokens)), TimeUnit.NANOSECONDS);
          long status = prefillStatus.applyAsLong(tokens);
          call.respond((int) status, status == 200 ? TestDialectWire.prefillResponseFrom("e0") : "{}");
          answered++;
        } else {
          decodeBatch(transport.calls().subList(answered, transport.calls().size()), tokens,
              body.path("max_tokens").asInt());
        }
      }
      return measured.getNow(null);
    }

    private void decodeBatch(List<Call> batch, long promptTokens, int outputTokens) {
      List<Call> calls = List.copyOf(batch);
      int k = calls.size();
      batchSizes.add(k);
      answered += k;
      loop.advance(nanos(prefill.seconds(promptTokens * k)), TimeUnit.NANOSECONDS);
      calls.forEach(c -> c.sse().event(OpenAiWire.completionToken(" t")));
      for (int j = 1; j < outputTokens; j++) {
        // Token j is the step over every stream's prompt and the j tokens it has so far.
        loop.advance(nanos(decode.seconds(k * (promptTokens + j), k)), TimeUnit.NANOSECONDS);
        calls.forEach(c -> c.event(OpenAiWire.completionToken(" t")));
      }
      calls.forEach(c -> c.event("[DONE]").end());
    }
  }

  private static long nanos(double seconds) {
    return Math.round(seconds * 1e9);
  }

  @Test
  void measure_recoversTheEnginesModels_andWritesARowBoundToItsGeneration() {
    PrefillModel prefillTruth = new PrefillModel(0.015, 6e-5, 4e-9, 0, 0);
    DecodeModel decodeTruth = new DecodeModel(0.009, 3e-7, 2.5e-4, 0, 0);
    Engine engine = new Engine(prefillTruth, decodeTruth::intervalSeconds, l -> 200);

    EngineMeasurement m = engine.serve(profiler.measure(ENGINE, PLAN));

    assertThat(m.problems()).isEmpty();
    assertThat(m.notes()).isEmpty();
    assertThat(engine.batchSizes).as("two warm-up batches of 8 that agree, then the plan")
        .containsExactly(8, 8, 1, 1, 2, 2, 4, 4, 8, 8);
    ProfileRow row = m.row();
    assertThat(row).isNotNull();
    assertThat(row.iid()).isEqualTo("e0");
    assertThat(row.url()).isEqualTo("http://10.0.0.9:8000");
    assertThat(row.generation()).isEqualTo("7");
    assertThat(row.measuredAt()).isEqualTo(NOW);
    // Times are whole nanoseconds on the manual clock: relative errors of 1e-7 at most.
    assertThat(row.prefill().baseS()).isCloseTo(0.015, within(1e-7));
    assertThat(row.prefill().perTokenS()).isCloseTo(6e-5, within(1e-10));
    assertThat(row.prefill().perTokenSquaredS()).isCloseTo(4e-9, within(1e-13));
    assertThat(row.prefill().minTokens()).isEqualTo(32);
    assertThat(row.prefill().maxTokens()).isEqualTo(4096);
    assertThat(row.prefillSamples()).isEqualTo(8);
    assertThat(row.decode().baseS()).isCloseTo(0.009, within(1e-7));
    assertThat(row.decode().perResidentTokenS()).isCloseTo(3e-7, within(1e-11));
    assertThat(row.decode().perSequenceS()).isCloseTo(2.5e-4, within(1e-8));
    assertThat(row.decodeSamples()).isEqualTo(8);
    assertThat(row.decode().maxSequences()).isEqualTo(8);
    assertThat(row.decodeFitMape()).isLessThan(1e-6);
    assertThat(row.decodeCvMape()).isLessThan(1e-6);
    assertThat(transport.openConnections()).isZero();
  }

  @Test
  void aBudgetTooSmallForThePlan_measuresWhatFits_andSaysWhatItLeftOut() {
    Engine engine = new Engine(new PrefillModel(0.01, 1e-4, 0, 0, 0), new DecodeModel(0.01, 1e-7, 1e-3, 0, 0)::intervalSeconds,
        l -> 200);
    // The warm-up takes 1.36 s (three legs of 32 tokens, one of 4096, two agreeing batches of 16
    // short streams); prefill may then spend 35 % of the 3.14 s left: until 2.459 s. Lengths 32 to
    // 1024 (3 legs each) end at 2.12 s, so 2048 starts and ends at 2.73 s, and 4096 does not start.
    // The decode batches then fill what is left of the 4.5 s; the later ones would start past it.
    ProfilingPlan plan = new ProfilingPlan(PLAN.prefillLengths(), 3, List.of(1, 2, 4, 8, 16), List.of(32L, 512L),
        16, TimeUnit.MILLISECONDS.toNanos(4500));

    EngineMeasurement m = engine.serve(profiler.measure(ENGINE, plan));

    assertThat(m.notes()).hasSize(2);
    assertThat(m.notes().get(0)).startsWith("the budget let prefill measure 7 of 8 prompt lengths (up to 2048 tokens)");
    assertThat(m.notes().get(1)).isEqualTo("the budget let decode measure 7 of 10 batches");
    assertThat(m.row()).isNotNull();
    assertThat(m.row().prefill().maxTokens()).isEqualTo(2048);
    assertThat(m.row().decodeSamples()).isEqualTo(7);
    assertThat(m.elapsedNanos()).isLessThan(TimeUnit.MILLISECONDS.toNanos(4700));
  }

  @Test
  void aFailingLeg_failsTheEngine_withTheLegAndTheEnginesAnswer() {
    Engine engine = new Engine(new PrefillModel(0.01, 1e-4, 0, 0, 0), new DecodeModel(0.01, 0, 0, 0, 0)::intervalSeconds,
        l -> l == 256 ? 503 : 200);

    EngineMeasurement m = engine.serve(profiler.measure(ENGINE, PLAN));

    assertThat(m.passed()).isFalse();
    assertThat(m.row()).isNull();
    assertThat(m.problems()).singleElement().asString().startsWith("a prefill leg of 256 prompt tokens failed: ")
        .endsWith("; if the engine refuses prompts that long, lower --max-prompt-tokens below 256");
  }

  @Test
  void anEngineThatRestartedWhileMeasured_givesNoRow() {
    generations.clear();
    generations.addAll(List.of(EngineGeneration.known("7"), EngineGeneration.known("8")));
    Engine engine = new Engine(new PrefillModel(0.01, 1e-4, 0, 0, 0), new DecodeModel(0.01, 1e-7, 1e-3, 0, 0)::intervalSeconds,
        l -> 200);

    EngineMeasurement m = engine.serve(profiler.measure(ENGINE, PLAN));

    assertThat(m.row()).isNull();
    assertThat(m.prefill()).isNotNull();
    assertThat(m.problems()).containsExactly(
        "the engine restarted while it was measured (generation 7 became 8): measure it again");
  }

  @Test
  void aDecodeFitBeyondTheLimits_isReportedWithItsNumbers_andGivesNoRow() {
    // The interval swings with the batch size in a way no line follows: 10 ms, 40 ms, 10 ms, 40 ms for 1, 2, 4, 8.
    Interval zigzag = (resident, k) -> k == 1 || k == 4 ? 0.01 : 0.04;
    Engine engine = new Engine(new PrefillModel(0.01, 1e-4, 0, 0, 0), zigzag, l -> 200);

    EngineMeasurement m = engine.serve(profiler.measure(ENGINE, PLAN));

    assertThat(m.decode()).isNotNull();
    assertThat(m.row()).isNull();
    assertThat(m.problems()).anySatisfy(p -> assertThat(p).startsWith("decode fit MAPE ")
        .contains(" exceeds profiles.max_decode_fit_mape 5.0 %: measure it again with nothing else running on the "
            + "engine or its host, or raise --decode-tokens"));
  }
}
