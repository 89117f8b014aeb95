package narwhal.it;

import static narwhal.testing.Poll.until;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import narwhal.sim.SimEngine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A client that goes away before its response is over, wherever its request is: the engine leg in
 * flight is cancelled (the engine sees its connection close), nothing later is dispatched, every
 * reservation is released and the journal says {@code cancelled} and where.
 */
class ClientDisconnectTest {

  @Test
  void disconnectMidStream_closesTheDecodeConnectionAndReleasesReservations() throws Exception {
    try (RoutedFleet fleet = RoutedFleet.start(1, 1,
        RoutedFleet.fastEngines().interTokenMillis(20).build(), c -> c, null)) {
      String body = "{\"model\":\"narwhal-sim\",\"prompt\":\"long story\",\"max_tokens\":500,\"stream\":true}";
      try (Socket socket = send(fleet, "c-stream", body)) {
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
      until("the decode engine saw its stream cancelled", () -> decode.stats().cancelledStreams() == 1);
      assertThat(decode.stats().activeStreams()).isZero();
      fleet.assertReservationsReturnToZero();
      JsonNode row = fleet.journal().awaitRowForClientRid("c-stream");
      assertThat(row.path("terminal").asText()).as("row %s", row).isEqualTo("cancelled");
      assertThat(row.path("cancelled_phase").asText()).as("row %s", row).isEqualTo("decode");
    }
  }

  @Test
  void nonStreamingClientGoneDuringDecode_cancelsTheDecodeLegAndReleasesReservations() throws Exception {
    // 20 ms a token and 1000 tokens: the decode would run for 20 s; the client leaves after a few.
    try (RoutedFleet fleet = RoutedFleet.start(1, 1,
        RoutedFleet.fastEngines().interTokenMillis(20).build(), c -> c, null)) {
      SimEngine decode = fleet.engine("d0");
      String body = "{\"model\":\"narwhal-sim\",\"prompt\":\"a long tale\",\"max_tokens\":1000,\"stream\":false}";
      try (Socket socket = send(fleet, "c-whole", body)) {
        // A non-streaming client sees nothing until the end: watch the engine generate instead.
        until("the decode engine generating", () -> decode.stats().generationTokens() >= 3);
        assertThat(decode.stats().activeRequests()).isEqualTo(1);
      }
      until("the decode engine saw its response cancelled", () -> decode.stats().cancelledRequests() == 1);
      assertThat(decode.stats().activeRequests()).isZero();
      // The router streams every decode leg (it assembles non-streaming answers itself).
      assertThat(decodeWasStreamed(decode)).isTrue();
      assertThat(decode.stats().cancelledStreams()).isEqualTo(1);
      assertThat(decode.stats().activeStreams()).isZero();
      fleet.assertReservationsReturnToZero();
      JsonNode row = fleet.journal().awaitRowForClientRid("c-whole");
      assertThat(row.path("terminal").asText()).as("row %s", row).isEqualTo("cancelled");
      assertThat(row.path("cancelled_phase").asText()).as("row %s", row).isEqualTo("decode");
      assertThat(row.path("status").isNull()).as("no status: the client got no answer; row %s", row).isTrue();
    }
  }

  @ParameterizedTest(name = "stream={0}")
  @ValueSource(booleans = {true, false})
  void clientGoneDuringPrefill_closesThePrefillConnection_andNeverSendsTheDecode(boolean stream)
      throws Exception {
    try (RoutedFleet fleet = RoutedFleet.start(1, 1, RoutedFleet.fastEngines().build(), c -> c, null)) {
      SimEngine prefill = fleet.engine("p0");
      SimEngine decode = fleet.engine("d0");
      // The prefill engine holds the response back for 30 s: the request stays in its prefill leg
      // until the client leaves. The wait below is far shorter, so only a closed connection can
      // end the engine's wait.
      String body = "{\"model\":\"narwhal-sim\",\"prompt\":\"[[sim:delay-headers=30000,phase=prefill]] stuck\","
          + "\"max_tokens\":5,\"stream\":" + stream + "}";
      String clientRid = "c-prefill-" + stream;
      try (Socket socket = send(fleet, clientRid, body)) {
        until("the prefill engine holding the request", () -> prefill.stats().waitingRequests() == 1);
      }
      until("the prefill engine saw its connection close", () -> prefill.stats().waitingRequests() == 0);
      fleet.assertReservationsReturnToZero();
      JsonNode row = fleet.journal().awaitRowForClientRid(clientRid);
      assertThat(row.path("terminal").asText()).as("row %s", row).isEqualTo("cancelled");
      assertThat(row.path("cancelled_phase").asText()).as("row %s", row).isEqualTo("prefill");
      assertThat(row.path("decode_iid").isNull()).as("row %s", row).isTrue();
      // The request has ended (its row is written), so no decode can follow any more.
      assertThat(decode.received()).as("requests the decode engine received").isEmpty();
      assertThat(decode.stats().requests()).isZero();
      assertThat(prefill.stats().requests()).isEqualTo(1);
      assertThat(prefill.stats().activeRequests()).isZero();
    }
  }

  /** Sends one POST /v1/completions with a client request id; the caller closes the socket to leave. */
  private static Socket send(RoutedFleet fleet, String clientRid, String body) throws IOException {
    Socket socket = new Socket("127.0.0.1", fleet.router.port());
    OutputStream out = socket.getOutputStream();
    out.write(("POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        + "X-Request-Id: " + clientRid + "\r\n"
        + "Content-Length: " + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + body)
        .getBytes(StandardCharsets.UTF_8));
    out.flush();
    return socket;
  }

  private static boolean decodeWasStreamed(SimEngine decode) {
    return decode.received().stream()
        .anyMatch(r -> r.body() != null && r.body().path("stream").asBoolean(false));
  }
}
