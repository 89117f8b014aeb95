package narwhal.testing.tls;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;

/**
 * Sends a TLS ClientHello offering only an old protocol version and reads what the server sends
 * back. The JDK's own client will not offer TLS 1.0 or 1.1 (they are disabled in its security
 * properties), so a test that a server refuses them has to speak the first message itself.
 */
public final class LegacyClientHello {

  /** TLS 1.1 on the wire. */
  public static final int TLS_1_1 = 0x0302;
  /** TLS 1.0 on the wire. */
  public static final int TLS_1_0 = 0x0301;

  /** What the server answered. */
  public enum Answer {
    /** A handshake record: the server went on with the old version. */
    SERVER_HELLO,
    /** A fatal alert: the server refused. */
    ALERT,
    /** The server closed without a word (also a refusal). */
    CLOSED
  }

  /** The server's answer and, for an alert, its description (70 = protocol_version). */
  public record Reply(Answer answer, int alertDescription) {}

  private LegacyClientHello() {}

  /** Offers only {@code version} (e.g. {@link #TLS_1_1}) to {@code host:port}. */
  public static Reply offer(String host, int port, int version) throws IOException {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(host, port), 5_000);
      socket.setSoTimeout(5_000);
      OutputStream out = socket.getOutputStream();
      out.write(clientHello(version));
      out.flush();
      DataInputStream in = new DataInputStream(socket.getInputStream());
      try {
        int type = in.readUnsignedByte();
        in.readUnsignedShort(); // record version
        int length = in.readUnsignedShort();
        byte[] body = new byte[length];
        in.readFully(body);
        if (type == 21 && length >= 2) {
          return new Reply(Answer.ALERT, body[1] & 0xff);
        }
        return new Reply(type == 22 ? Answer.SERVER_HELLO : Answer.CLOSED, -1);
      } catch (EOFException | SocketTimeoutException e) {
        return new Reply(Answer.CLOSED, -1);
      } catch (IOException e) {
        return new Reply(Answer.CLOSED, -1); // reset
      }
    }
  }

  /** A minimal ClientHello: no session, two CBC suites of that era, no compression, no extensions. */
  private static byte[] clientHello(int version) {
    byte[] random = new byte[32];
    new java.security.SecureRandom().nextBytes(random);
    int[] suites = {0xc013, 0xc009, 0x002f, 0x0035}; // ECDHE-RSA/ECDSA-AES128-SHA, RSA-AES128/256-SHA
    int bodyLength = 2 + 32 + 1 + 2 + 2 * suites.length + 2;
    byte[] out = new byte[5 + 4 + bodyLength];
    int i = 0;
    out[i++] = 22; // handshake record
    out[i++] = (byte) (version >> 8);
    out[i++] = (byte) version;
    out[i++] = (byte) ((4 + bodyLength) >> 8);
    out[i++] = (byte) (4 + bodyLength);
    out[i++] = 1; // ClientHello
    out[i++] = 0;
    out[i++] = (byte) (bodyLength >> 8);
    out[i++] = (byte) bodyLength;
    out[i++] = (byte) (version >> 8);
    out[i++] = (byte) version;
    System.arraycopy(random, 0, out, i, 32);
    i += 32;
    out[i++] = 0; // session id length
    out[i++] = (byte) ((2 * suites.length) >> 8);
    out[i++] = (byte) (2 * suites.length);
    for (int s : suites) {
      out[i++] = (byte) (s >> 8);
      out[i++] = (byte) s;
    }
    out[i++] = 1; // one compression method
    out[i++] = 0; // null
    return out;
  }
}
