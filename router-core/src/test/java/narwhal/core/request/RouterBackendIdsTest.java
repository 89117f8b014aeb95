package narwhal.core.request;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import narwhal.core.request.RouterFixture.Client;
import narwhal.proto.v1.CompletionRequest;
import narwhal.testing.OpenAiWire;
import narwhal.testing.ScriptedTransport.Call;
import org.junit.jupiter.api.Test;

/**
 * A request can be followed into the engines' logs: each leg's backend id is derived from the
 * router's rid and attempt, the journal lists them per attempt, and every leg carries the
 * request's W3C trace context (the client's, or one the router started).
 */
class RouterBackendIdsTest {

  private static final String CLIENT_TRACE = "0af7651916cd43dd8448eb211c80319c";
  private static final String CLIENT_PARENT = "00-" + CLIENT_TRACE + "-b7ad6b7169203331-01";

  @Test
  void legsCarryRidDerivedIds_aRetryTheNextAttempts_andTheRowListsThemPerAttempt() {
    RouterFixture r = new RouterFixture(RouterFixture.twoByTwo(s -> s.withMaxAttempts(2)));
    Client c = r.submitCompletion();
    String rid = c.handle().requestId();

    r.prefillOk(r.call(0));
    r.call(1).respond(500, OpenAiWire.errorBody(500, "Internal server error"));
    r.loop.advanceMillis(1000);
    r.prefillOk(r.call(2));
    r.call(3).sse().event(OpenAiWire.completionToken("a")).event("[DONE]").end();

    assertThat(c.sink().log).containsExactly("start", "token:a", "complete");
    assertThat(r.transport.calls()).extracting(RouterFixture::backendId)
        .containsExactly(rid + "-p1", rid + "-d1", rid + "-p2", rid + "-d2");
    Map<String, Object> row = r.row();
    assertThat(row).containsEntry("rid", rid);
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> legs = (List<Map<String, Object>>) row.get("attempt_legs");
    assertThat(legs).containsExactly(
        Map.of("attempt", 1, "prefill_iid", "p1", "prefill_backend_id", rid + "-p1",
            "decode_iid", "d1", "decode_backend_id", rid + "-d1", "outcome", "failed"),
        Map.of("attempt", 2, "prefill_iid", "p2", "prefill_backend_id", rid + "-p2",
            "decode_iid", "d2", "decode_backend_id", rid + "-d2", "outcome", "completed"));
  }

  @Test
  void aPrefillThatFailsListsNoDecodeLegForItsAttempt() {
    RouterFixture r = new RouterFixture(RouterFixture.twoByTwo(s -> s.withMaxAttempts(1)));
    Client c = r.submitCompletion();
    r.call(0).respond(500, OpenAiWire.errorBody(500, "boom"));
    String rid = c.handle().requestId();

    @SuppressWarnings("unchecked")
    List<Map<String, Object>> legs = (List<Map<String, Object>>) r.row().get("attempt_legs");
    assertThat(legs).singleElement().satisfies(m -> assertThat(m)
        .containsEntry("prefill_backend_id", rid + "-p1").containsEntry("decode_backend_id", null)
        .containsEntry("outcome", "failed"));
  }

  @Test
  void aClientTraceparentReachesBothLegs_sameTrace_eachLegItsOwnParent() {
    RouterFixture r = new RouterFixture(RouterFixture.twoByTwo());
    Client c = r.submit(traced(CLIENT_PARENT, "vendor=abc"));
    r.prefillOk(r.call(0));

    List<Call> legs = r.transport.calls();
    assertThat(legs).hasSize(2);
    for (Call leg : legs) {
      assertThat(leg.request.headers().get("traceparent")).matches("00-" + CLIENT_TRACE + "-[0-9a-f]{16}-01");
      assertThat(leg.request.headers()).containsEntry("tracestate", "vendor=abc");
    }
    assertThat(legs).extracting(l -> l.request.headers().get("traceparent"))
        .doesNotHaveDuplicates().doesNotContain(CLIENT_PARENT);
    r.call(1).sse().event(OpenAiWire.completionToken("a")).event("[DONE]").end();
    assertThat(r.row()).containsEntry("trace_id", CLIENT_TRACE);
    assertThat(c.sink().log).contains("complete");
  }

  @Test
  void withoutATraceparent_orWithAnInvalidOne_theRouterStartsATrace_andDropsTheClientsTracestate() {
    for (String header : new String[] {"", "00-" + CLIENT_TRACE.toUpperCase() + "-b7ad6b7169203331-01",
        "00-00000000000000000000000000000000-b7ad6b7169203331-01", "ff-" + CLIENT_TRACE + "-b7ad6b7169203331-01",
        CLIENT_PARENT + "-extra", CLIENT_PARENT + "," + CLIENT_PARENT}) {
      RouterFixture r = new RouterFixture(RouterFixture.twoByTwo());
      r.submit(traced(header, "vendor=abc"));
      r.prefillOk(r.call(0));
      String prefill = r.call(0).request.headers().get("traceparent");
      String decode = r.call(1).request.headers().get("traceparent");
      assertThat(prefill).as(header).matches("00-[0-9a-f]{32}-[0-9a-f]{16}-01").doesNotContain(CLIENT_TRACE);
      assertThat(decode.substring(3, 35)).as(header).isEqualTo(prefill.substring(3, 35));
      assertThat(decode).isNotEqualTo(prefill);
      assertThat(r.call(0).request.headers()).as(header).doesNotContainKey("tracestate");
    }
  }

  private static CompletionRequest traced(String traceparent, String tracestate) {
    return OpenAiWire.completions("{\"model\":\"m\",\"prompt\":\"hello\",\"max_tokens\":8,\"stream\":true}")
        .toBuilder().setTraceparent(traceparent).setTracestate(tracestate).build();
  }
}
