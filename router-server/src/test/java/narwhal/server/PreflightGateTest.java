package narwhal.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import narwhal.config.EngineRole;
import narwhal.config.EngineSpec;
import narwhal.config.FleetConfig;
import org.junit.jupiter.api.Test;

/** {@code narwhal serve}'s preflight gate: enforce refuses, warn and off let serving go ahead. */
class PreflightGateTest {

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);

  private static FleetConfig unreachableFleet() throws IOException {
    String url;
    try (ServerSocket socket = new ServerSocket(0)) {
      url = "http://127.0.0.1:" + socket.getLocalPort();
    }
    return FleetConfig.of("m", List.of(EngineSpec.of("e0", url, EngineRole.BOTH)));
  }

  @Test
  void gate_enforce_refusesAFailingFleet() throws IOException {
    assertThat(Preflight.gate(unreachableFleet(), Preflight.Mode.ENFORCE, print, "narwhal serve")).isFalse();
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("FAIL e0  unreachable", "refusing to serve");
  }

  @Test
  void gate_warn_printsTheFailuresAndGoesAhead() throws IOException {
    assertThat(Preflight.gate(unreachableFleet(), Preflight.Mode.WARN, print, "narwhal serve")).isTrue();
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("FAIL e0  unreachable",
        "serving despite the failed preflight (--preflight=warn)");
  }

  @Test
  void gate_off_checksNothing() throws IOException {
    assertThat(Preflight.gate(unreachableFleet(), Preflight.Mode.OFF, print, "narwhal serve")).isTrue();
    assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("narwhal serve: preflight skipped (--preflight=off)\n");
  }
}
