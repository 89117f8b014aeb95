package narwhal.core.request;

import static org.assertj.core.api.Assertions.assertThat;

import narwhal.api.RouterError;
import narwhal.core.request.RouterFixture.Client;
import narwhal.testing.OpenAiWire;
import org.junit.jupiter.api.Test;

/** serving.request_timeout_s, counted from arrival, before and after the first token. */
class RouterDeadlineTest {

  private final RouterFixture r = new RouterFixture(RouterFixture.twoByTwo(s -> s.withRequestTimeoutS(5)));

  @Test
  void deadline_duringPrefill_504RequestExpiredAndPrefillCancelled() {
    Client c = r.submitCompletion();

    r.loop.advanceMillis(4999);
    assertThat(c.sink().log).isEmpty();
    assertThat(r.call(0).cancelled()).isFalse();

    r.loop.advanceMillis(1);
    RouterError error = c.sink().error();
    assertThat(error.status()).isEqualTo(504);
    assertThat(error.type()).isEqualTo("request_expired");
    assertThat(error.message()).contains("5 s").contains("before the first token");
    assertThat(r.call(0).cancelled()).isTrue();
    assertThat(r.residentPrefill()).isZero();
    assertThat(r.row()).containsEntry("terminal", "expired").containsEntry("reason", "deadline")
        .containsEntry("status", 504);
    assertThat(r.loop.pendingTasks()).isZero();
  }

  @Test
  void deadline_duringDecodeBeforeFirstToken_504RequestExpiredAndDecodeCancelled() {
    RouterFixture fast = new RouterFixture(RouterFixture.twoByTwo(s -> s.withRequestTimeoutS(2)));
    Client c = fast.submitCompletion();
    fast.loop.advanceMillis(1000);
    fast.prefillOk(fast.call(0));
    fast.call(1).sse();

    fast.loop.advanceMillis(999);
    assertThat(c.sink().log).isEmpty();
    fast.loop.advanceMillis(1);

    assertThat(c.sink().log).containsExactly("error:504:request_expired");
    assertThat(fast.call(1).cancelled()).isTrue();
    assertThat(fast.residentDecode()).isZero();
    assertThat(fast.transport.calls()).hasSize(2);
  }

  @Test
  void deadline_afterFirstToken_terminal504AfterOutputAndDecodeCancelled() {
    Client c = r.submitCompletion();
    r.loop.advanceMillis(500);
    r.prefillOk(r.call(0));
    r.call(1).sse().event(OpenAiWire.completionToken("a"));

    r.loop.advanceMillis(4499);
    r.call(1).event(OpenAiWire.completionToken("b"));
    assertThat(c.sink().log).containsExactly("start", "token:a", "token:b");

    r.loop.advanceMillis(1);
    assertThat(c.sink().log).containsExactly("start", "token:a", "token:b", "error:504:decode");
    assertThat(c.sink().error().code()).isEqualTo("request_expired");
    assertThat(r.call(1).cancelled()).isTrue();
    assertThat(r.residentDecode()).isZero();
    assertThat(r.row()).containsEntry("terminal", "expired").containsEntry("output_len", 2);
    assertThat(r.loop.pendingTasks()).isZero();
  }
}
