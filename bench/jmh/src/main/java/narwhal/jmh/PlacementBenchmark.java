package narwhal.jmh;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import narwhal.config.EngineRole;
import narwhal.config.EngineSpec;
import narwhal.config.SloConfig;
import narwhal.core.fleet.EngineState;
import narwhal.core.fleet.Fleet;
import narwhal.core.placement.DecodeRanking;
import narwhal.core.placement.PlacementCost;
import narwhal.core.placement.PrefillRanking;
import narwhal.core.profile.DecodeModel;
import narwhal.core.profile.EngineProfile;
import narwhal.core.profile.PrefillModel;
import narwhal.core.profile.ProfileBook;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The placement decision made once per request attempt: least resident work among the capable
 * engines, decode avoiding the producer; and the same decision priced from every engine's profile
 * ({@code *Priced}: the coverage check, then the ranking a request reuses across its attempts),
 * as {@code PricedPlacement} makes it. Half the fleet prefills and half decodes, with uneven
 * resident work and tokens; one engine is excluded, as after a failed attempt.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms512m", "-Xmx512m"})
public class PlacementBenchmark {

  @Param({"4", "16", "64"})
  public int engines;

  private Fleet fleet;
  private Set<String> excluded;
  private String producer;
  private PlacementCost cost;
  private PrefillRanking prefillRanking;
  private DecodeRanking decodeRanking;

  @Setup(Level.Trial)
  public void setUp() {
    List<EngineSpec> specs = new ArrayList<>();
    for (int i = 0; i < engines; i++) {
      EngineRole role = i % 2 == 0 ? EngineRole.PREFILL : EngineRole.DECODE;
      specs.add(EngineSpec.of(String.format("e%03d", i), "http://127.0.0.1:" + (9000 + i), role));
    }
    fleet = new Fleet(specs);
    Random random = new Random(1);
    // Tokens from their own generator, so the work per engine is what it was before they counted.
    Random tokens = new Random(2);
    for (EngineState e : fleet.engines()) {
      int work = random.nextInt(32);
      for (int w = 0; w < work; w++) {
        if (e.spec().canPrefill()) {
          e.reservePrefill(tokens.nextInt(4096));
        } else {
          e.reserveDecode(tokens.nextInt(8192));
        }
      }
    }
    ProfileBook book = ProfileBook.empty();
    for (EngineState e : fleet.engines()) {
      book.put(new EngineProfile(e.iid(), null, new PrefillModel(0.01, 1e-4, 1e-8, 1, 32_768),
          new DecodeModel(0.01, 1e-6, 1e-4, 1_000_000, 256), 0.01, 0.02));
    }
    cost = new PlacementCost(book, SloConfig.of(2.0, 0.1));
    prefillRanking = new PrefillRanking(cost);
    decodeRanking = new DecodeRanking(cost);
    excluded = Set.of("e002");
    producer = "e000";
  }

  @Benchmark
  public EngineState pickPrefill() {
    return fleet.pickPrefill(excluded, 0L);
  }

  @Benchmark
  public EngineState pickDecode() {
    return fleet.pickDecode(producer, excluded, 0L);
  }

  @Benchmark
  public EngineState pickPrefillPriced() {
    return cost.pricesPrefill(fleet)
        ? fleet.pickPrefill(excluded, 0L, prefillRanking.forRequest(1000, 0.01))
        : fleet.pickPrefill(excluded, 0L);
  }

  @Benchmark
  public EngineState pickDecodePriced() {
    return cost.pricesDecode(fleet)
        ? fleet.pickDecode(producer, excluded, 0L, decodeRanking.forRequest(1200))
        : fleet.pickDecode(producer, excluded, 0L);
  }
}
