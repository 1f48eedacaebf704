package io.gpupool.cli;

import java.util.List;

/** A line diff (longest common subsequence) printed as " ", "-" and "+" lines; rule files are small. */
final class LineDiff {
    private LineDiff() {
    }

    static void append(StringBuilder out, List<String> a, List<String> b) {
        int[][] lcs = new int[a.size() + 1][b.size() + 1];
        for (int i = a.size() - 1; i >= 0; i--) {
            for (int j = b.size() - 1; j >= 0; j--) {
                lcs[i][j] = a.get(i).equals(b.get(j)) ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
            }
        }
        int i = 0;
        int j = 0;
        while (i < a.size() || j < b.size()) {
            if (i < a.size() && j < b.size() && a.get(i).equals(b.get(j))) {
                i++;
                j++;
            } else if (i < a.size() && (j == b.size() || lcs[i + 1][j] >= lcs[i][j + 1])) {
                out.append('-').append(a.get(i++)).append('\n');
            } else {
                out.append('+').append(b.get(j++)).append('\n');
            }
        }
    }
}
