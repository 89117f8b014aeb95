package narwhal.jmh;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import narwhal.config.EngineRole;
import narwhal.config.EngineSpec;
import narwhal.core.fleet.EngineState;
import narwhal.core.fleet.Fleet;
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
 * engines, decode avoiding the producer. Half the fleet prefills and half decodes, with uneven
 * resident work; one engine is excluded, as after a failed attempt.
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

  @Setup(Level.Trial)
  public void setUp() {
    List<EngineSpec> specs = new ArrayList<>();
    for (int i = 0; i < engines; i++) {
      EngineRole role = i % 2 == 0 ? EngineRole.PREFILL : EngineRole.DECODE;
      specs.add(EngineSpec.of(String.format("e%03d", i), "http://127.0.0.1:" + (9000 + i), role));
    }
    fleet = new Fleet(specs);
    Random random = new Random(1);
    for (EngineState e : fleet.engines()) {
      int work = random.nextInt(32);
      for (int w = 0; w < work; w++) {
        if (e.spec().canPrefill()) {
          e.reservePrefill(0);
        } else {
          e.reserveDecode(0);
        }
      }
    }
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
}
