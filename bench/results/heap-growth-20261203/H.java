import java.util.*;
public class H { public static void main(String[] a){ List<byte[]> keep=new ArrayList<>(); Runtime r=Runtime.getRuntime();
 for(int i=0;i<1600;i++){ keep.add(new byte[100_000]); for(int j=0;j<50;j++) { byte[] g=new byte[10_000]; }
   if(i%200==0) System.out.println("live~"+(i/10)+"MB committed "+r.totalMemory()/1048576+"MB"); }
 System.out.println("end committed "+r.totalMemory()/1048576+"MB"); } }
