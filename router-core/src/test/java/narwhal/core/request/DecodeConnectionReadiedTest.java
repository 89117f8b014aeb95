package narwhal.core.request;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import narwhal.core.request.RouterFixture.Client;
import narwhal.testing.OpenAiWire;
import org.junit.jupiter.api.Test;

/**
 * While an engine prefills, the router asks its transport to ready a connection to the engine
 * decode placement would pick, so that connecting (and a TLS handshake) is not on the path from
 * the prefill answer to the decode request.
 */
class DecodeConnectionReadiedTest {

  private static final URI D1 = URI.create("http://10.0.0.3:8200");
  private static final URI D2 = URI.create("http://10.0.0.4:8200");

  @Test
  void whileThePrefillRuns_aConnectionToTheLikelyDecodeEngineIsReadied_whichTheDecodeLegThenUses() {
    RouterFixture r = new RouterFixture(RouterFixture.twoByTwo());
    Client c = r.submitCompletion();

    assertThat(r.transport.calls()).as("only the prefill leg is out").hasSize(1);
    assertThat(r.transport.prepared()).containsExactly(D1);

    r.prefillOk(r.call(0));
    assertThat(r.call(1).engine).isEqualTo(D1);
    r.call(1).sse().event(OpenAiWire.completionToken("a")).event("[DONE]").end();
    assertThat(c.sink().log).containsExactly("start", "token:a", "complete");
  }

  @Test
  void aRetriedAttempt_readiesForTheEngineItsDecodeWouldTakeThen() {
    RouterFixture r = new RouterFixture(RouterFixture.twoByTwo(s -> s.withMaxAttempts(2)));
    r.submitCompletion();
    r.prefillOk(r.call(0));
    // d1 fails before any output: the retry avoids it, and readies d2 while its prefill runs.
    r.call(1).respond(500, OpenAiWire.errorBody(500, "Internal server error"));
    r.loop.advanceMillis(1000);

    assertThat(r.transport.prepared()).containsExactly(D1, D2);
    r.prefillOk(r.call(2));
    assertThat(r.call(3).engine).isEqualTo(D2);
  }
}
