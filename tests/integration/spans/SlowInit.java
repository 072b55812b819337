// The Java app of test_spans: a class whose static initializer burns 200 ms.
public class SlowInit {
    static class Table {
        static final long[] T = new long[1024];
        static {
            long end = System.nanoTime() + 200_000_000L;
            int i = 0;
            while (System.nanoTime() < end)
                T[i++ & 1023] += i;
        }
    }

    public static void main(String[] args) {
        System.out.println(Table.T.length);
    }
}
