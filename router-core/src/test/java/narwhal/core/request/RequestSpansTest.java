package narwhal.core.request;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import narwhal.core.request.RouterFixture.Client;
import narwhal.core.trace.Tracing;
import narwhal.testing.OpenAiWire;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * With an SDK, each request makes one span and each leg one child span, every one ended exactly
 * once whichever way it ends (an attempt that failed, the client leaving, the deadline).
 */
class RequestSpansTest {

  private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
  /** Counts onEnd calls: a span ended twice would not be exported twice, but would be counted. */
  private final AtomicInteger ends = new AtomicInteger();
  private final SdkTracerProvider provider = SdkTracerProvider.builder()
      .addSpanProcessor(SimpleSpanProcessor.create(exporter))
      .addSpanProcessor(new io.opentelemetry.sdk.trace.SpanProcessor() {
        @Override
        public void onStart(io.opentelemetry.context.Context parent, io.opentelemetry.sdk.trace.ReadWriteSpan span) {}

        @Override
        public boolean isStartRequired() {
          return false;
        }

        @Override
        public void onEnd(io.opentelemetry.sdk.trace.ReadableSpan span) {
          ends.incrementAndGet();
        }

        @Override
        public boolean isEndRequired() {
          return true;
        }
      })
      .build();
  private final Tracing tracing = Tracing.with(OpenTelemetrySdk.builder().setTracerProvider(provider).build());

  @AfterEach
  void close() {
    provider.close();
  }

  @Test
  void aRetriedRequest_oneRequestSpan_andOneSpanPerLeg_theFailedOneMarkedError() {
    RouterFixture r = new RouterFixture(RouterFixture.twoByTwo(s -> s.withMaxAttempts(2)), tracing);
    Client c = r.submit(OpenAiWire.completions("{\"model\":\"m\",\"prompt\":\"hi\",\"max_tokens\":8,\"stream\":true}")
        .toBuilder().setTraceparent("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01").build());
    String rid = c.handle().requestId();
    r.prefillOk(r.call(0));
    r.call(1).respond(500, OpenAiWire.errorBody(500, "Internal server error"));
    r.loop.advanceMillis(1000);
    r.prefillOk(r.call(2));
    r.call(3).sse().event(OpenAiWire.completionToken("a")).event("[DONE]").end();
    assertThat(c.sink().log).contains("complete");

    List<SpanData> spans = exporter.getFinishedSpanItems();
    assertThat(spans).extracting(SpanData::getName).containsExactlyInAnyOrder(
        "narwhal.prefill", "narwhal.decode", "narwhal.prefill", "narwhal.decode", "narwhal.request");
    assertThat(ends).hasValue(5);
    SpanData request = span(spans, "narwhal.request", 0);
    assertThat(request.getTraceId()).isEqualTo("0af7651916cd43dd8448eb211c80319c");
    assertThat(request.getParentSpanId()).isEqualTo("b7ad6b7169203331");
    assertThat(request.getKind()).isEqualTo(SpanKind.SERVER);
    assertThat(request.getAttributes().get(AttributeKey.stringKey("narwhal.rid"))).isEqualTo(rid);
    assertThat(request.getAttributes().get(AttributeKey.stringKey("narwhal.model"))).isEqualTo("m");
    assertThat(request.getAttributes().get(AttributeKey.stringKey("narwhal.route"))).isEqualTo("completions");
    assertThat(request.getAttributes().get(AttributeKey.stringKey("narwhal.outcome"))).isEqualTo("completed");
    assertThat(request.getAttributes().get(AttributeKey.longKey("http.response.status_code"))).isEqualTo(200L);
    for (SpanData leg : spans) {
      if (leg != request) {
        assertThat(leg.getParentSpanId()).isEqualTo(request.getSpanId());
        assertThat(leg.getKind()).isEqualTo(SpanKind.CLIENT);
      }
    }
    SpanData failed = span(spans, "narwhal.decode", 1);
    assertThat(failed.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(failed.getAttributes().get(AttributeKey.longKey("http.response.status_code"))).isEqualTo(500L);
    assertThat(failed.getAttributes().get(AttributeKey.stringKey("narwhal.backend_id"))).isEqualTo(rid + "-d1");
    assertThat(failed.getAttributes().get(AttributeKey.stringKey("narwhal.engine.iid"))).isEqualTo("d1");
    assertThat(failed.getAttributes().get(AttributeKey.stringKey("narwhal.phase"))).isEqualTo("decode");
    SpanData retried = span(spans, "narwhal.decode", 2);
    assertThat(retried.getStatus().getStatusCode()).isNotEqualTo(StatusCode.ERROR);
    assertThat(retried.getAttributes().get(AttributeKey.stringKey("narwhal.backend_id"))).isEqualTo(rid + "-d2");
    // The traceparent each leg sent names that leg's own span.
    assertThat(r.call(3).request.headers().get("traceparent"))
        .isEqualTo("00-" + retried.getTraceId() + "-" + retried.getSpanId() + "-01");
  }

  @Test
  void aClientThatLeavesMidStream_endsTheDecodeSpanAndTheRequestSpanOnce() {
    RouterFixture r = new RouterFixture(RouterFixture.twoByTwo(), tracing);
    Client c = r.submitCompletion();
    r.prefillOk(r.call(0));
    r.call(1).sse().event(OpenAiWire.completionToken("a"));
    c.handle().cancel();
    r.loop.runPending();

    List<SpanData> spans = exporter.getFinishedSpanItems();
    assertThat(spans).extracting(SpanData::getName)
        .containsExactlyInAnyOrder("narwhal.prefill", "narwhal.decode", "narwhal.request");
    assertThat(ends).hasValue(3);
    assertThat(span(spans, "narwhal.decode", 1).getAttributes().get(AttributeKey.stringKey("narwhal.reason")))
        .isEqualTo("cancelled");
    assertThat(span(spans, "narwhal.request", 0).getAttributes().get(AttributeKey.stringKey("narwhal.outcome")))
        .isEqualTo("cancelled");
  }

  @Test
  void aRequestThatTimesOutInItsPrefill_endsThePrefillSpanAndTheRequestSpan() {
    RouterFixture r = new RouterFixture(RouterFixture.twoByTwo(), tracing);
    r.submitCompletion();
    r.loop.advanceMillis(3_600_000);

    List<SpanData> spans = exporter.getFinishedSpanItems();
    assertThat(spans).extracting(SpanData::getName).containsExactlyInAnyOrder("narwhal.prefill", "narwhal.request");
    assertThat(ends).hasValue(2);
    SpanData request = span(spans, "narwhal.request", 0);
    assertThat(request.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(request.getAttributes().get(AttributeKey.longKey("http.response.status_code"))).isEqualTo(504L);
  }

  /** The span named {@code name} of leg attempt {@code attempt} (0 for the request span). */
  private static SpanData span(List<SpanData> spans, String name, long attempt) {
    return spans.stream()
        .filter(s -> s.getName().equals(name))
        .filter(s -> attempt == 0 || Long.valueOf(attempt).equals(s.getAttributes().get(AttributeKey.longKey("narwhal.attempt"))))
        .findFirst().orElseThrow();
  }
}
