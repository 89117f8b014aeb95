package narwhal.it;

import static narwhal.it.Eventually.await;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import narwhal.sim.SimEngine;
import org.junit.jupiter.api.Test;

/** A client that goes away mid-stream: the engine connection closes and everything is released. */
class ClientDisconnectTest {

  @Test
  void disconnectMidStream_closesTheDecodeConnectionAndReleasesReservations() throws Exception {
    try (RoutedFleet fleet = RoutedFleet.start(1, 1,
        RoutedFleet.fastEngines().interTokenMillis(20).build(), c -> c, null)) {
      String body = "{\"model\":\"narwhal-sim\",\"prompt\":\"long story\",\"max_tokens\":500,\"stream\":true}";
      try (Socket socket = new Socket("127.0.0.1", fleet.router.port())) {
        OutputStream out = socket.getOutputStream();
        out.write(("POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            + "Content-Length: " + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + body)
            .getBytes(StandardCharsets.UTF_8));
        out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
        int tokens = 0;
        String line;
        while (tokens < 3 && (line = in.readLine()) != null) {
          if (line.startsWith("data: {")) {
            tokens++;
          }
        }
        assertThat(tokens).isEqualTo(3);
      }
      SimEngine decode = fleet.engine("d0");
      await("the decode engine saw its stream cancelled", () -> decode.stats().cancelledStreams() == 1);
      assertThat(decode.stats().activeStreams()).isZero();
      fleet.assertReservationsReturnToZero();
    }
  }

}
