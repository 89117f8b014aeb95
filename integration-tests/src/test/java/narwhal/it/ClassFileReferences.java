package narwhal.it;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Narwhal classes one class file names anywhere in its constant pool: in descriptors and
 * generic signatures, and in annotation values such as a class literal ({@code @Command(subcommands
 * = X.class)}), which a class file stores as a descriptor string rather than a class constant, so
 * {@code jdeps} does not see it. A source-level dependency hidden there is still a dependency (the
 * source does not compile without the other package), so the structure test counts it.
 */
final class ClassFileReferences {

  /** A type descriptor, in a method or field descriptor, a signature or an annotation value. */
  private static final Pattern DESCRIPTOR = Pattern.compile("L(narwhal/[A-Za-z0-9_$/]+)[;<]");

  private ClassFileReferences() {}

  /** The internal names ({@code narwhal/a/B}) the class file names in its descriptors and signatures. */
  static Set<String> of(InputStream classFile) throws IOException {
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(classFile.readAllBytes()));
    if (in.readInt() != 0xCAFEBABE) {
      throw new IOException("not a class file");
    }
    in.readUnsignedShort(); // minor version
    in.readUnsignedShort(); // major version
    int count = in.readUnsignedShort();
    Set<String> out = new TreeSet<>();
    for (int i = 1; i < count; i++) {
      int tag = in.readUnsignedByte();
      switch (tag) {
        case 1 -> { // Utf8
          Matcher m = DESCRIPTOR.matcher(in.readUTF());
          while (m.find()) {
            out.add(m.group(1));
          }
        }
        case 3, 4, 9, 10, 11, 12, 17, 18 -> in.skipNBytes(4);
        case 5, 6 -> { // Long, Double: two slots
          in.skipNBytes(8);
          i++;
        }
        case 7, 8, 16, 19, 20 -> in.skipNBytes(2);
        case 15 -> in.skipNBytes(3);
        default -> throw new IOException("unknown constant pool tag " + tag);
      }
    }
    return out;
  }

  /** {@code narwhal.a} for {@code narwhal/a/B} or {@code narwhal/a/B$C}. */
  static String packageOf(String internalName) {
    int slash = internalName.lastIndexOf('/');
    return internalName.substring(0, slash).replace('/', '.');
  }
}
