package narwhal.bench.profile;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import jdk.jfr.Recording;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProfilerToolsTest {

  @Test
  void asyncProfilerLibrary_isChosenByOsAndArchitecture() {
    assertThat(AsyncProfilerAgent.resourceFor("Linux", "amd64")).contains("linux-x64/libasyncProfiler.so");
    assertThat(AsyncProfilerAgent.resourceFor("Linux", "aarch64")).contains("linux-arm64/libasyncProfiler.so");
    assertThat(AsyncProfilerAgent.resourceFor("Mac OS X", "aarch64")).isEmpty();
    assertThat(AsyncProfilerAgent.resourceFor("Linux", "s390x")).isEmpty();
  }

  @Test
  void agentSuccess_isItsReturnCodeZero_asJcmdRelaysIt() {
    assertThat(AsyncProfilerAgent.succeeded(new Jcmd.Result(true, "4242:\nreturn code: 0"))).isTrue();
    assertThat(AsyncProfilerAgent.succeeded(new Jcmd.Result(true, "4242:\n[ERROR] event must not be empty\n"
        + "return code: 100"))).isFalse();
    assertThat(AsyncProfilerAgent.succeeded(new Jcmd.Result(true, "4242:\n/x.so was not loaded.\n"
        + "/x.so: cannot open shared object file"))).isFalse();
    assertThat(AsyncProfilerAgent.succeeded(new Jcmd.Result(false, "return code: 0"))).isFalse();
  }

  @Test
  void asyncProfilerLibrary_isOnTheClasspath_andExtractsAsAnElfFile(@TempDir Path dir) throws Exception {
    // The Maven dependency must deliver the library the profile mode loads into the router.
    assertThat(getClass().getClassLoader().getResource("linux-x64/libasyncProfiler.so")).isNotNull();
    Optional<AsyncProfilerAgent> agent = AsyncProfilerAgent.extract(new Jcmd("java"), dir);
    if (System.getProperty("os.name").toLowerCase().contains("linux")
        && AsyncProfilerAgent.resourceFor("Linux", System.getProperty("os.arch")).isPresent()) {
      assertThat(agent).isPresent();
      byte[] head = Files.readAllBytes(dir.resolve("libasyncProfiler.so"));
      assertThat(head.length).isGreaterThan(100_000);
      assertThat(new String(head, 1, 3, java.nio.charset.StandardCharsets.US_ASCII)).isEqualTo("ELF");
    }
  }

  @Test
  void jfrExecutionSamples_becomeCollapsedStacks_rootFirst(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("spin.jfr");
    try (Recording r = new Recording()) {
      r.enable(JfrStacks.EXECUTION_SAMPLE).withPeriod(Duration.ofMillis(10));
      r.start();
      long deadline = System.nanoTime() + Duration.ofMillis(600).toNanos();
      long sink = 0;
      while (System.nanoTime() < deadline) {
        sink += spin();
      }
      r.stop();
      r.dump(file);
      assertThat(sink).isNotZero();
    }
    CollapsedStacks stacks = JfrStacks.collapse(file);
    assertThat(stacks.totalSamples()).as("samples of a thread spinning for 600 ms").isPositive();
    String rendered = stacks.render();
    assertThat(rendered).contains(ProfilerToolsTest.class.getName() + ".spin");
    // Root first: the test method comes before the method it calls on the same line.
    String line = rendered.lines().filter(l -> l.contains(".spin")).findFirst().orElseThrow();
    assertThat(line.indexOf("jfrExecutionSamples_becomeCollapsedStacks_rootFirst")).isLessThan(line.indexOf(".spin"));
  }

  private static long spin() {
    long x = 0;
    for (int i = 0; i < 200_000; i++) {
      x += (long) i * i ^ (x >>> 3);
    }
    return x | 1;
  }
}
