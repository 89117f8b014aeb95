package narwhal.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The sink contract both front-ends keep around submit. */
class SinkGuardTest {

  private final List<String> log = new ArrayList<>();
  private final SinkGuard guard = new SinkGuard();

  private final class Handle implements RequestHandle {
    @Override
    public String requestId() {
      return "rid-1";
    }

    @Override
    public void cancel() {
      log.add("cancel");
    }

    @Override
    public void abort(RouterError error, String reason) {
      log.add("abort " + reason);
    }

    @Override
    public void clientWritable() {
      log.add("writable");
    }
  }

  /** A sink call: runs now if the guard accepts it, else is replayed by the guard. */
  private void deliver(String what) {
    if (guard.accept(() -> deliver(what))) {
      log.add(what + " as " + guard.requestId());
    }
  }

  @Test
  void callsDuringSubmit_areReplayedAfterIt_withTheRequestIdKnown() {
    guard.submit(() -> {
      deliver("start");
      deliver("token");
      return new Handle();
    });

    assertThat(log).containsExactly("start as rid-1", "token as rid-1");
  }

  @Test
  void afterTheEnd_nothingIsDelivered_andTheHandleIsStoppedOnce() {
    guard.submit(Handle::new);
    guard.abort(RouterError.of(502, "decode", "decode", "too big"), "response_limit");
    guard.cancel();
    guard.end();
    deliver("late");
    guard.clientWritable();

    assertThat(log).containsExactly("abort response_limit");
  }

  @Test
  void aSubmitThatThrows_dropsWhatItDelivered() {
    assertThatThrownBy(() -> guard.submit(() -> {
      deliver("start");
      throw new IllegalStateException("bug");
    })).hasMessage("bug");
    guard.cancel();

    assertThat(log).isEmpty();
    assertThat(guard.requestId()).isNull();
  }
}
