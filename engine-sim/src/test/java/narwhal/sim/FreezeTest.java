package narwhal.sim;

import static narwhal.sim.SimHttp.completion;
import static narwhal.sim.SimHttp.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link SimEngine#freeze()} plays a stopped process: silent and unread, then whole again. */
class FreezeTest {

  @Test
  void freeze_holdsAStreamUnderWay_andResumeDeliversTheRestInOrder() throws IOException {
    try (SimEngine engine = SimEngine.start(SimOptions.builder().interTokenMillis(10).build())) {
      try (RawSse raw = RawSse.post(engine.port(), "/v1/completions", completion("frozen story", 60, true))
          .readHead()) {
        List<String> data = new ArrayList<>();
        data.add(raw.nextData());
        engine.freeze();
        assertThat(engine.frozen()).isTrue();
        // Tokens already on their way when the freeze took hold may still arrive; then silence.
        raw.timeoutMillis(200);
        assertThatThrownBy(() -> {
          for (String d = raw.nextData(); d != null; d = raw.nextData()) {
            data.add(d);
          }
        }).isInstanceOf(SocketTimeoutException.class);
        assertThat(data.size()).isLessThan(30);
        raw.timeoutMillis(400);
        assertThatThrownBy(raw::nextData).isInstanceOf(SocketTimeoutException.class);

        engine.resume();
        raw.timeoutMillis(5000);
        for (String d = raw.nextData(); d != null; d = raw.nextData()) {
          data.add(d);
        }
        assertThat(data).last().isEqualTo("[DONE]");
        StringBuilder text = new StringBuilder();
        data.subList(0, data.size() - 1).forEach(d -> text.append(json(d).path("choices").path(0).path("text").asText()));
        assertThat(text.toString()).isEqualTo(SimEngine.expectedText(0, "frozen story", 60));
      }
    }
  }

  @Test
  void frozenEngine_answersNothingUntilResumed() throws IOException {
    try (SimEngine engine = SimEngine.start(SimOptions.builder().build());
        Socket socket = new Socket("127.0.0.1", engine.port())) {
      engine.freeze();
      // The listen backlog takes a new connection, as the kernel does for a stopped process.
      try (Socket late = new Socket("127.0.0.1", engine.port())) {
        assertThat(late.isConnected()).isTrue();
      }
      socket.getOutputStream().write("GET /health HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      socket.setSoTimeout(400);
      InputStream in = socket.getInputStream();
      assertThatThrownBy(in::read).isInstanceOf(SocketTimeoutException.class);

      engine.resume();
      assertThat(engine.frozen()).isFalse();
      socket.setSoTimeout(5000);
      byte[] head = in.readNBytes(12);
      assertThat(new String(head, StandardCharsets.US_ASCII)).isEqualTo("HTTP/1.1 200");
    }
  }
}
