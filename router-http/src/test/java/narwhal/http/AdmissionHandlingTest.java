package narwhal.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import narwhal.api.RouterError;
import narwhal.testing.ScriptedCompletionService.Ticket;
import org.junit.jupiter.api.Test;

/**
 * The front-end's side of admission: a ticket is taken on the request's headers, a refusal is
 * answered before the body is read, and every ticket the front-end keeps is ended exactly once
 * (invalid body, client gone mid-body, or handed to submit).
 */
class AdmissionHandlingTest extends FrontEndTestSupport {

  private static final RouterError OVERLOADED = RouterError.of(429, "server_overloaded_error", null,
      "router in-flight limit reached").withRetryAfter(1);

  private Ticket nextTicket() throws InterruptedException {
    Ticket t = service.tickets.poll(10, TimeUnit.SECONDS);
    if (t == null) {
      throw new AssertionError("no ticket was taken");
    }
    return t;
  }

  @Test
  void refusal_isAnsweredOnTheHeaders_andTheConnectionServesTheNextRequest() throws Exception {
    service.refuseAdmission(OVERLOADED);
    try (RawHttpConnection http = new RawHttpConnection(frontEnd.port())) {
      String body = "{\"prompt\": \"x\"}";
      http.send("POST /v1/completions HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
          + "Content-Length: " + body.length() + "\r\n\r\n");

      RawHttpConnection.Response refused = http.readResponse();

      assertThat(refused.status()).isEqualTo(429);
      assertThat(refused.headers()).containsEntry("retry-after", "1");
      assertThat(refused.headers().get("x-request-id")).isEqualTo(nextTicket().requestId());
      assertThat(json(refused.body()).path("error").path("type").asText()).isEqualTo("server_overloaded_error");
      // The body that follows is skipped, and the connection stays usable.
      service.refuseAdmission(null);
      service.script(call -> call.stream(Events.completionFinal("hi", "stop", "null")));
      http.send(body);
      http.post("/v1/completions", "{\"prompt\": \"x\"}");
      assertThat(http.readResponse().status()).isEqualTo(200);
    }
    assertThat(service.pendingCalls()).isEqualTo(1);
  }

  @Test
  void invalidBody_endsTheTicketAsInvalid_andIsNeverSubmitted() throws Exception {
    var r = post("/v1/completions", "{\"prompt\": \"x\", \"n\": 3}");

    assertThat(r.statusCode()).isEqualTo(400);
    Ticket ticket = nextTicket();
    assertThat(r.headers().firstValue("x-request-id")).hasValue(ticket.requestId());
    assertThat(ticket.endings).containsExactly("invalid:400");
    assertThat(service.pendingCalls()).isZero();
  }

  @Test
  void anotherModel_endsTheTicketAsInvalid404() throws Exception {
    var r = post("/v1/completions", "{\"model\": \"nope\", \"prompt\": \"x\"}");

    assertThat(r.statusCode()).isEqualTo(404);
    assertThat(nextTicket().endings).containsExactly("invalid:404");
  }

  @Test
  void bodyOverTheLimit_endsTheTicketAsInvalid413() throws Exception {
    try (RawHttpConnection http = new RawHttpConnection(frontEnd.port())) {
      http.send("POST /v1/completions HTTP/1.1\r\nHost: t\r\nContent-Length: 99999\r\n\r\n");
      assertThat(http.readResponse().status()).isEqualTo(413);
    }
    assertThat(nextTicket().endings).containsExactly("invalid:413");
  }

  @Test
  void clientGoneMidBody_abandonsTheTicketOnce() throws Exception {
    Ticket ticket;
    try (RawHttpConnection http = new RawHttpConnection(frontEnd.port())) {
      http.send("POST /v1/completions HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\n{\"prompt\"");
      ticket = nextTicket();
    }

    await("the ticket to be abandoned", () -> !ticket.endings.isEmpty());
    assertThat(ticket.endings).containsExactly("abandon");
    assertThat(service.pendingCalls()).isZero();
  }
}
