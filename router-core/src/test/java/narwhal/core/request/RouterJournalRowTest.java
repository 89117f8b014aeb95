package narwhal.core.request;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Map;
import narwhal.core.request.RouterFixture.Client;
import narwhal.testing.OpenAiWire;
import narwhal.testing.ScriptedTransport.Call;
import narwhal.testing.TestDialectWire;
import org.junit.jupiter.api.Test;

/** The journal row's timing and size columns, on a manual clock. */
class RouterJournalRowTest {

  private final RouterFixture r = new RouterFixture(RouterFixture.twoByTwo());

  @Test
  void completedRow_hasTheMeasurementContractColumns() {
    Client c = r.submit(OpenAiWire.completions(
        "{\"model\":\"m\",\"prompt\":[1,2,3,4],\"max_tokens\":3,\"stream\":true}"));
    r.loop.advanceMillis(100);
    r.prefillOk(r.call(0));
    Call decode = r.call(1).sse();
    r.loop.advanceMillis(50);
    decode.event(OpenAiWire.completionToken("a"));
    r.loop.advanceMillis(30);
    decode.event(OpenAiWire.completionToken("b"));
    r.loop.advanceMillis(30);
    decode.event(OpenAiWire.completionToken("c"));
    r.loop.advanceMillis(10);
    decode.event("[DONE]").end();

    assertThat(c.sink().log).endsWith("complete");
    Map<String, Object> row = r.row();
    assertThat(row).containsEntry("input_len", 4L).containsEntry("input_sized", "exact")
        .containsEntry("wanted_len", 3L).containsEntry("output_len", 3)
        .containsEntry("decode_attempts", 1).containsEntry("queue_wait_s", null).containsEntry("cancelled_phase", null)
        .containsEntry("error", null).containsEntry("error_code", null);
    assertThat((double) row.get("ttft_s")).isCloseTo(0.1, within(1e-9));
    assertThat((double) row.get("first_byte_s")).isCloseTo(0.15, within(1e-9));
    // (last token - prefill completion) / (n - 1) and (last - first) / (n - 1)
    assertThat((double) row.get("tpot_s")).isCloseTo(0.055, within(1e-9));
    assertThat((double) row.get("decode_tpot_s")).isCloseTo(0.03, within(1e-9));
    // Prefill 0.1 s plus decode 0.12 s; the router itself did its work in no manual-clock time.
    assertThat((double) row.get("upstream_s")).isCloseTo(0.22, within(1e-9));
    assertThat((double) row.get("router_overhead_s")).isZero();
    assertThat((double) row.get("duration_s")).isCloseTo(0.22, within(1e-9));
  }

  @Test
  void oneToken_hasNoTpot_andAPrefillFailureCountsNoDecodeAttempt() {
    Client c = r.submitCompletion();
    r.prefillOk(r.call(0));
    r.call(1).sse().event(OpenAiWire.completionToken("a")).event("[DONE]").end();
    assertThat(c.sink().log).endsWith("complete");
    assertThat(r.row()).containsEntry("tpot_s", null).containsEntry("decode_tpot_s", null);

    r.journal.rows.clear();
    Client failed = r.submitCompletion();
    r.call(2).respond(500, OpenAiWire.errorBody(500, "boom"));
    assertThat(failed.sink().errors).hasSize(1);
    assertThat(r.row()).containsEntry("decode_attempts", 0).containsEntry("attempts", 1)
        .containsEntry("router_overhead_s", 0.0).containsEntry("ttft_s", null);
  }

  @Test
  void textPrompt_takesInputLenFromTheEnginesUsage_andDurationKeysEndInS() {
    Client c = r.submit(OpenAiWire.completions("{\"model\":\"m\",\"prompt\":\"count me\",\"max_tokens\":3}"));
    r.prefillOk(r.call(0));
    r.call(1).sse().event(OpenAiWire.completionToken("a")).event(OpenAiWire.usage(17, 1)).event("[DONE]").end();

    assertThat(c.sink().log).endsWith("complete");
    Map<String, Object> row = r.row();
    // The router only estimated a text prompt (the test dialect has no tokenize route): the
    // engine's usage.prompt_tokens says it; input_sized says how the router priced it.
    assertThat(row).containsEntry("input_len", 17L).containsEntry("input_sized", "estimated")
        .containsEntry("front_end", "http");
    assertThat(row.keySet()).filteredOn(k -> k.endsWith("_seconds")).isEmpty();
    assertThat(row).containsKeys("upstream_s", "duration_s", "queue_wait_s", "router_overhead_s");
  }

  @Test
  void anEstimatedPrompt_takesInputLenFromTheProducersAnswer() {
    Client c = r.submit(r.completionRequest());
    r.prefillOk(r.call(0)); // its usage says prompt_tokens 5
    r.call(1).sse().event(OpenAiWire.completionToken("a")).event("[DONE]").end();

    assertThat(c.sink().log).endsWith("complete");
    assertThat(r.row()).containsEntry("input_len", 5L).containsEntry("input_sized", "estimated");
  }

  @Test
  void aRequestThroughAFrontEndsView_isJournalledWithItsName() {
    RouterFixture.Client c = r.submit(r.arrival(narwhal.api.FrontEnd.GRPC), r.completionRequest());
    // A producer answer without usage, and no engine counted "hello": the row carries the router's
    // estimate (5 characters at engine.chars_per_token 3.8, rounded up), and says so.
    r.call(0).respond(200, TestDialectWire.prefillResponseWithoutUsageFrom("engine-" + r.iidOf(r.call(0))));
    r.call(1).sse().event(OpenAiWire.completionToken("a")).event("[DONE]").end();
    assertThat(c.sink().log).endsWith("complete");
    assertThat(r.row()).containsEntry("front_end", "grpc").containsEntry("input_len", 2L)
        .containsEntry("input_sized", "estimated");

    r.journal.rows.clear();
    narwhal.api.AdmissionTicket.Admitted ticket =
        (narwhal.api.AdmissionTicket.Admitted) r.router.admit(r.arrival(narwhal.api.FrontEnd.HTTP));
    ticket.invalid(narwhal.api.RouterError.invalid("bad", null));
    assertThat(r.row()).containsEntry("front_end", "http").containsEntry("terminal", "invalid");
  }
}
