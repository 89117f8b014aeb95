package narwhal.server;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporterBuilder;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import narwhal.core.trace.Tracing;
import org.jspecify.annotations.Nullable;

/**
 * Builds the OpenTelemetry SDK that exports the router's spans by OTLP/HTTP, only when the
 * standard environment asks for it ({@code OTEL_TRACES_EXPORTER=otlp}, or an {@code
 * OTEL_EXPORTER_OTLP_ENDPOINT} / {@code OTEL_EXPORTER_OTLP_TRACES_ENDPOINT}). Otherwise nothing is
 * built: no SDK, no exporter, no thread, and {@link Tracing#off()} (trace context still travels to
 * the engines). Read by hand rather than by the SDK's autoconfigure, whose default exporter is
 * otlp: tracing here must be off unless asked for.
 */
final class TracingSetup implements AutoCloseable {

  static final String DEFAULT_ENDPOINT = "http://localhost:4318/v1/traces";

  private final Tracing tracing;
  private final @Nullable SdkTracerProvider provider;
  private final @Nullable String endpoint;

  private TracingSetup(Tracing tracing, @Nullable SdkTracerProvider provider, @Nullable String endpoint) {
    this.tracing = tracing;
    this.provider = provider;
    this.endpoint = endpoint;
  }

  static TracingSetup off() {
    return new TracingSetup(Tracing.off(), null, null);
  }

  /**
   * Reads {@code env} (the process environment in production).
   *
   * @throws IllegalArgumentException for an exporter or protocol this router cannot use, so a
   *     misconfigured tracing setup fails at startup rather than silently exporting nothing
   */
  static TracingSetup fromEnvironment(Map<String, String> env) {
    if ("true".equalsIgnoreCase(value(env, "OTEL_SDK_DISABLED"))) {
      return off();
    }
    String exporter = value(env, "OTEL_TRACES_EXPORTER").toLowerCase(Locale.ROOT);
    String tracesEndpoint = value(env, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
    String baseEndpoint = value(env, "OTEL_EXPORTER_OTLP_ENDPOINT");
    boolean wanted = switch (exporter) {
      case "none" -> false;
      case "otlp" -> true;
      case "" -> !tracesEndpoint.isEmpty() || !baseEndpoint.isEmpty();
      default -> throw new IllegalArgumentException("OTEL_TRACES_EXPORTER=" + exporter
          + ": narwhal exports traces by otlp only (or none)");
    };
    if (!wanted) {
      return off();
    }
    String protocol = value(env, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL");
    if (protocol.isEmpty()) {
      protocol = value(env, "OTEL_EXPORTER_OTLP_PROTOCOL");
    }
    if (!protocol.isEmpty() && !protocol.equals("http/protobuf")) {
      throw new IllegalArgumentException("OTEL_EXPORTER_OTLP_PROTOCOL=" + protocol
          + ": narwhal exports OTLP over http/protobuf only");
    }
    // As the specification says: the signal's own endpoint is used as is; the base gets /v1/traces.
    String endpoint = !tracesEndpoint.isEmpty() ? tracesEndpoint
        : !baseEndpoint.isEmpty() ? (baseEndpoint.endsWith("/") ? baseEndpoint : baseEndpoint + "/") + "v1/traces"
        : DEFAULT_ENDPOINT;
    OtlpHttpSpanExporterBuilder exporterBuilder = OtlpHttpSpanExporter.builder().setEndpoint(endpoint);
    headers(value(env, "OTEL_EXPORTER_OTLP_HEADERS"), exporterBuilder);
    headers(value(env, "OTEL_EXPORTER_OTLP_TRACES_HEADERS"), exporterBuilder);
    String service = value(env, "OTEL_SERVICE_NAME");
    Resource resource = Resource.getDefault().merge(Resource.create(Attributes.of(
        AttributeKey.stringKey("service.name"), service.isEmpty() ? "narwhal" : service)));
    SdkTracerProvider provider = SdkTracerProvider.builder()
        .setResource(resource)
        .addSpanProcessor(BatchSpanProcessor.builder(exporterBuilder.build()).build())
        .build();
    // Not registered as the global OpenTelemetry: only the router's own spans go through it.
    OpenTelemetrySdk sdk = OpenTelemetrySdk.builder().setTracerProvider(provider).build();
    return new TracingSetup(Tracing.with(sdk), provider, endpoint);
  }

  Tracing tracing() {
    return tracing;
  }

  /** True when an SDK was built (and must be closed). */
  boolean sdkBuilt() {
    return provider != null;
  }

  /** Where spans go, for the startup log line (the headers, which may hold credentials, are not shown). */
  @Nullable String endpoint() {
    return endpoint;
  }

  /** Exports the spans still buffered (briefly) and stops the exporter's thread. */
  @Override
  public void close() {
    if (provider != null) {
      provider.shutdown().join(5, TimeUnit.SECONDS);
    }
  }

  /** {@code key1=value1,key2=value2}, values URL-encoded, as the OTLP exporter specification reads it. */
  private static void headers(String spec, OtlpHttpSpanExporterBuilder builder) {
    for (String pair : spec.split(",")) {
      int eq = pair.indexOf('=');
      if (eq > 0) {
        builder.addHeader(pair.substring(0, eq).trim(),
            URLDecoder.decode(pair.substring(eq + 1).trim(), StandardCharsets.UTF_8));
      }
    }
  }

  private static String value(Map<String, String> env, String key) {
    String v = env.get(key);
    return v == null ? "" : v.trim();
  }
}
