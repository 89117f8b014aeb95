package narwhal.jmh;

import java.util.List;
import java.util.concurrent.TimeUnit;
import narwhal.api.Authentication;
import narwhal.config.ApiKeyHash;
import narwhal.config.TenantConfig;
import narwhal.config.TenantsConfig;
import narwhal.core.tenants.TenantDirectory;
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
 * What checking a client's key costs, and that the time does not tell an attacker anything: a
 * right key, a key right in its id but wrong in its first or its last secret character, and a key
 * whose id no tenant has must all take the same time (one salted SHA-256 and a constant-time
 * compare of the digests), whatever the number of keys configured.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms256m", "-Xmx256m"})
public class KeyCheckBenchmark {

  private static final String KEY = "nwk_k3Jd9aQ2_" + "A".repeat(43);

  @Param({"right", "wrong_first", "wrong_last", "unknown_id"})
  public String presented;

  @Param({"1", "1000"})
  public int keys;

  private TenantDirectory directory;
  private String authorization;

  @Setup(Level.Trial)
  public void setUp() {
    List<TenantConfig> tenants = new java.util.ArrayList<>();
    byte[] salt = new byte[16];
    for (int i = 0; i < keys; i++) {
      String key = i == 0 ? KEY : String.format("nwk_%08d_%s", i, "B".repeat(43));
      tenants.add(new TenantConfig("t" + i, List.of(ApiKeyHash.of(key, salt)), List.of(), 0, 0, 0, 1));
    }
    directory = new TenantDirectory(new TenantsConfig(tenants, List.of()), 0, reason -> {});
    String key = switch (presented) {
      case "right" -> KEY;
      case "wrong_first" -> "nwk_k3Jd9aQ2_B" + "A".repeat(42);
      case "wrong_last" -> "nwk_k3Jd9aQ2_" + "A".repeat(42) + "B";
      case "unknown_id" -> "nwk_zzzzzzzz_" + "A".repeat(43);
      default -> throw new IllegalArgumentException(presented);
    };
    authorization = "Bearer " + key;
  }

  @Benchmark
  public Authentication authenticate() {
    return directory.authenticate(authorization);
  }
}
