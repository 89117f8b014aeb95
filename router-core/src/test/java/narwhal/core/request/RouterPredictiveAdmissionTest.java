package narwhal.core.request;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.codahale.metrics.Counter;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import narwhal.api.RouterError;
import narwhal.config.AdmissionMode;
import narwhal.config.FleetConfig;
import narwhal.config.SloConfig;
import narwhal.core.metrics.SeriesName;
import narwhal.core.profile.DecodeModel;
import narwhal.core.profile.EngineProfile;
import narwhal.core.profile.PrefillModel;
import narwhal.core.request.RouterFixture.Client;
import narwhal.proto.v1.CompletionRequest;
import narwhal.testing.OpenAiWire;
import narwhal.testing.ScriptedTransport.Call;
import org.junit.jupiter.api.Test;

/**
 * Predictive admission through the whole router on a manual clock, with a profile book built
 * here (1 ms of prefill per prompt token, slo.ttft_s 1 s): refusals for the queue (429 with a
 * priced Retry-After) and for the prompt (429 without), the journal's {@code admission_price} on
 * priced rows, unprofiled engines admitted unpriced, retries never re-priced, {@code open}
 * admission unchanged, and {@code unserved} placements journalled and counted. Prompts are token
 * ids, so the router counts them exactly without an engine.
 */
class RouterPredictiveAdmissionTest {

  private static final PrefillModel MS_PER_TOKEN = new PrefillModel(0, 0.001, 0, 1, 100_000);
  private static final DecodeModel DECODE = new DecodeModel(0.01, 1e-6, 0.001, 1_000_000, 256);
  /** A 100 ms floor: over slo.tpot_s (50 ms) whatever is resident. */
  private static final DecodeModel TOO_SLOW = new DecodeModel(0.1, 0, 0, 1_000_000, 256);

  private static FleetConfig config(AdmissionMode mode, double margin) {
    FleetConfig c = RouterFixture.twoByTwo().withSlo(SloConfig.of(1.0, 0.05));
    return c.withServing(c.serving().withAdmission(mode).withAdmissionMargin(margin).withMaxAttempts(2));
  }

  private static RouterFixture profiled(FleetConfig config, DecodeModel decode, String... iids) {
    RouterFixture r = new RouterFixture(config);
    for (String iid : iids) {
      r.router.profiles().put(new EngineProfile(iid, null, MS_PER_TOKEN, decode, 0.01, 0.02));
    }
    return r;
  }

  /** A streaming completion whose prompt is {@code tokens} token ids. */
  private static CompletionRequest prompt(int tokens) {
    String ids = IntStream.range(0, tokens).mapToObj(i -> "7").collect(Collectors.joining(","));
    return OpenAiWire.completions("{\"model\":\"m\",\"prompt\":[" + ids + "],\"max_tokens\":4,\"stream\":true}");
  }

  private static long counter(RouterFixture r, String family, String... labels) {
    Counter c = r.router.metrics().registry().getCounters().get(SeriesName.of(family, labels));
    return c == null ? -1 : c.getCount();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> price(Map<String, Object> row) {
    return (Map<String, Object>) row.get("admission_price");
  }

  /** The producer answers {@code prefill}; the decode leg that follows streams one token. */
  private static void complete(RouterFixture r, Call prefill) {
    r.prefillOk(prefill);
    r.transport.last().sse().event(OpenAiWire.completionToken("a")).event("[DONE]").end();
  }

  @Test
  void overTheBudgetBecauseOfTheQueue_is429WithARetryAfterPricedFromTheBacklog() {
    RouterFixture r = profiled(config(AdmissionMode.PREDICTIVE, 1.0), DECODE, "p1", "p2", "d1", "d2");
    // Budget 2 s (margin 1). Two prompts of 1900 tokens hold both prefill engines (1.9 s each).
    r.submit(prompt(1900));
    r.submit(prompt(1900));
    assertThat(r.transport.calls()).hasSize(2);
    assertThat(r.journal.rows).isEmpty();

    Client refused = r.submit(prompt(2000));

    assertThat(r.transport.calls()).as("nothing sent for the refused request").hasSize(2);
    assertThat(refused.sink().errors).hasSize(1);
    RouterError error = refused.sink().errors.get(0);
    assertThat(error.status()).isEqualTo(429);
    assertThat(error.type()).isEqualTo("server_overloaded_error");
    assertThat(error.code()).isNull();
    // 1.9 s queued + 2.0 s own = 3.9 s, 1.9 s over the budget: retry in 2 s.
    assertThat(error.retryAfterSeconds()).isEqualTo(2);
    assertThat(error.message()).startsWith("projected time to first token 3.9 s is over the TTFT budget of 2 s")
        .contains("1.9 s of prefill work queued on engine p1").contains("2000 prompt tokens")
        .contains("Retry-After");
    Map<String, Object> row = r.row();
    assertThat(row).containsEntry("terminal", "refused").containsEntry("reason", "queue")
        .containsEntry("status", 429).containsEntry("prefill_iid", "p1").containsEntry("attempts", 0)
        .containsEntry("input_len", 2000L).containsEntry("input_sized", "exact");
    assertThat(price(row)).containsOnlyKeys("backlog_s", "own_prefill_s", "elapsed_s", "price_s");
    assertThat((double) price(row).get("backlog_s")).isCloseTo(1.9, within(1e-9));
    assertThat((double) price(row).get("own_prefill_s")).isCloseTo(2.0, within(1e-9));
    assertThat((double) price(row).get("elapsed_s")).isZero();
    assertThat((double) price(row).get("price_s")).isCloseTo(3.9, within(1e-9));
    assertThat(counter(r, "narwhal_refused_total", "cause", "queue")).isEqualTo(1);
    assertThat(row).as("refused, so never placed unserved").containsEntry("unserved", List.of());
    assertThat(counter(r, "narwhal_unserved_total", "phase", "prefill")).isZero();
    assertThat(r.residentPrefill()).as("only the two holders").isEqualTo(2);
  }

  @Test
  void aPromptThatAloneMissesTheBudget_is429WithoutRetryAfter() {
    RouterFixture r = profiled(config(AdmissionMode.PREDICTIVE, 0), DECODE, "p1", "p2", "d1", "d2");

    Client refused = r.submit(prompt(1001));

    assertThat(r.transport.calls()).isEmpty();
    RouterError error = refused.sink().errors.get(0);
    assertThat(error.status()).isEqualTo(429);
    assertThat(error.retryAfterSeconds()).as("waiting cannot help").isNull();
    assertThat(error.message()).contains("1001 tokens alone is projected to take 1.001 s on engine p1")
        .contains("waiting cannot help");
    assertThat(r.row()).containsEntry("terminal", "refused").containsEntry("reason", "prompt");
    assertThat(counter(r, "narwhal_refused_total", "cause", "prompt")).isEqualTo(1);
  }

  @Test
  void atTheBudget_isAdmitted_andItsRowCarriesThePrice() {
    RouterFixture r = profiled(config(AdmissionMode.PREDICTIVE, 0), DECODE, "p1", "p2", "d1", "d2");

    Client c = r.submit(prompt(1000));
    r.loop.advanceMillis(1000);
    complete(r, r.call(0));

    assertThat(c.sink().log).endsWith("complete");
    Map<String, Object> row = r.row();
    assertThat(row).containsEntry("terminal", "completed").containsEntry("unserved", List.of());
    assertThat(price(row)).containsEntry("backlog_s", 0.0).containsEntry("elapsed_s", 0.0);
    assertThat((double) price(row).get("price_s")).isCloseTo(1.0, within(1e-9));
    assertThat(r.residentPrefill() + r.residentDecode()).isZero();
  }

  @Test
  void anEngineWithoutAProfile_isAdmittedUnpriced() {
    // p1 has no profile: prefill placement stays least-loaded (p1) and its price is unknown.
    RouterFixture r = profiled(config(AdmissionMode.PREDICTIVE, 0), DECODE, "p2", "d1", "d2");

    Client c = r.submit(prompt(5000));
    complete(r, r.call(0));

    assertThat(r.iidOf(r.call(0))).isEqualTo("p1");
    assertThat(c.sink().log).endsWith("complete");
    assertThat(r.row()).containsEntry("admission_price", null).containsEntry("terminal", "completed");
  }

  @Test
  void aRetry_isNotPricedAgain_itWasAdmittedAlready() {
    RouterFixture r = profiled(config(AdmissionMode.PREDICTIVE, 0), DECODE, "p1", "p2", "d1", "d2");
    Client c = r.submit(prompt(900));
    Call first = r.call(0);
    r.loop.advanceMillis(300);

    first.respond(500, OpenAiWire.errorBody(500, "boom"));
    r.loop.advanceMillis(200); // past the retry's backoff (at most retry_base_s 100 ms)

    // Priced again it would be refused: 0.5 s waited + 0.9 s own prefill is over 1 s.
    Call retry = r.call(1);
    assertThat(r.iidOf(retry)).isEqualTo("p2");
    complete(r, retry);
    assertThat(c.sink().log).endsWith("complete");
    Map<String, Object> row = r.row();
    assertThat(row).containsEntry("attempts", 2).containsEntry("terminal", "completed");
    assertThat((double) price(row).get("price_s")).as("the first attempt's price").isCloseTo(0.9, within(1e-9));
  }

  @Test
  void openAdmission_refusesNothing_andPlacesUnservedWhenNoEngineMeetsTheSlo() {
    RouterFixture r = profiled(config(AdmissionMode.OPEN, 0), TOO_SLOW, "p1", "p2", "d1", "d2");

    Client c = r.submit(prompt(5000));
    complete(r, r.call(0));

    assertThat(c.sink().log).endsWith("complete");
    Map<String, Object> row = r.row();
    assertThat(row).containsEntry("admission_price", null)
        .containsEntry("unserved", List.of("prefill", "decode"));
    assertThat(counter(r, "narwhal_unserved_total", "phase", "prefill")).isEqualTo(1);
    assertThat(counter(r, "narwhal_unserved_total", "phase", "decode")).isEqualTo(1);
    assertThat(counter(r, "narwhal_refused_total", "cause", "queue")).isZero();
  }

  @Test
  void withinTheMargin_isAdmitted_butPlacedUnserved() {
    RouterFixture r = profiled(config(AdmissionMode.PREDICTIVE, 0.5), DECODE, "p1", "p2", "d1", "d2");

    Client c = r.submit(prompt(1200)); // 1.2 s: over slo.ttft_s, within the 1.5 s budget
    complete(r, r.call(0));

    assertThat(c.sink().log).endsWith("complete");
    assertThat(r.row()).containsEntry("unserved", List.of("prefill"));
    assertThat(counter(r, "narwhal_unserved_total", "phase", "prefill")).isEqualTo(1);
    assertThat(counter(r, "narwhal_unserved_total", "phase", "decode")).isZero();
  }

  @Test
  void withoutProfiles_nothingIsPricedAndTheRowSaysSo() {
    RouterFixture r = profiled(config(AdmissionMode.PREDICTIVE, 0), DECODE);

    Client c = r.submit(prompt(50_000));
    complete(r, r.call(0));

    assertThat(c.sink().log).endsWith("complete");
    assertThat(r.row()).containsEntry("admission_price", null).containsEntry("unserved", null);
  }
}
