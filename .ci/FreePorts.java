import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/**
 * Prints N ports the system has just handed out for loopback listeners, one per line: .ci/docs-run
 * maps the fixed ports a page's commands use onto these, so a run never depends on a port being
 * free. All N are held open together before any is closed, so they are distinct.
 * Run as a single-file program: java .ci/FreePorts.java N
 */
public final class FreePorts {
  public static void main(String[] args) throws IOException {
    int n = Integer.parseInt(args[0]);
    List<ServerSocket> held = new ArrayList<>();
    try {
      for (int i = 0; i < n; i++) {
        held.add(new ServerSocket(0, 1, InetAddress.getLoopbackAddress()));
      }
      for (ServerSocket s : held) {
        System.out.println(s.getLocalPort());
      }
    } finally {
      for (ServerSocket s : held) {
        s.close();
      }
    }
  }
}
