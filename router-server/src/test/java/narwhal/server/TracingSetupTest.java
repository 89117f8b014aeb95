package narwhal.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import narwhal.core.trace.Tracing;
import org.junit.jupiter.api.Test;

/** Tracing is off unless the standard OTEL_* environment asks for OTLP export. */
class TracingSetupTest {

  @Test
  void nothingConfigured_noSdkIsBuilt_andTheApiIsTheNoOp() {
    try (TracingSetup setup = TracingSetup.fromEnvironment(Map.of())) {
      assertThat(setup.sdkBuilt()).isFalse();
      assertThat(setup.tracing()).isSameAs(Tracing.off());
      assertThat(setup.tracing().enabled()).isFalse();
    }
  }

  @Test
  void exporterNone_orSdkDisabled_buildsNothingEvenWithAnEndpoint() {
    for (Map<String, String> env : java.util.List.of(
        Map.of("OTEL_TRACES_EXPORTER", "none", "OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318"),
        Map.of("OTEL_SDK_DISABLED", "true", "OTEL_TRACES_EXPORTER", "otlp"))) {
      try (TracingSetup setup = TracingSetup.fromEnvironment(env)) {
        assertThat(setup.sdkBuilt()).as(env.toString()).isFalse();
      }
    }
  }

  @Test
  void anEndpoint_buildsAnOtlpHttpExporterToItsTracesPath() {
    try (TracingSetup setup = TracingSetup.fromEnvironment(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318"))) {
      assertThat(setup.sdkBuilt()).isTrue();
      assertThat(setup.tracing().enabled()).isTrue();
      assertThat(setup.endpoint()).isEqualTo("http://collector:4318/v1/traces");
    }
    try (TracingSetup setup = TracingSetup.fromEnvironment(Map.of("OTEL_TRACES_EXPORTER", "otlp",
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://collector:9999/custom"))) {
      assertThat(setup.endpoint()).isEqualTo("http://collector:9999/custom");
    }
    try (TracingSetup setup = TracingSetup.fromEnvironment(Map.of("OTEL_TRACES_EXPORTER", "otlp"))) {
      assertThat(setup.endpoint()).isEqualTo(TracingSetup.DEFAULT_ENDPOINT);
    }
  }

  @Test
  void anExporterOrProtocolItCannotUse_failsStartup() {
    assertThatThrownBy(() -> TracingSetup.fromEnvironment(Map.of("OTEL_TRACES_EXPORTER", "zipkin")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("otlp only");
    assertThatThrownBy(() -> TracingSetup.fromEnvironment(Map.of("OTEL_TRACES_EXPORTER", "otlp",
        "OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("http/protobuf");
  }
}
