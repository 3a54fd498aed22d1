"""Texts of the "Your turn" exercise cells, in English and French."""

CELLS = {
    "qkv": {
        "en": {
            "title": "Your turn: the matmul for Q",
            "instructions": "Write the matrix multiplication for Q. The same routine serves for K and V. `matmul(x, w)` receives the input `x` = X, `[T, d_model]` (T tokens, one row each), and a learned matrix `w` = W_Q of the head shown, `[d_model, d_head]`; it returns `x · w`, `[T, d_head]`: each row is one token’s query. No helper is defined for this cell: write it with loops or comprehensions (you may define your own `dot` above it). Your function is checked on the page’s current settings, with W_Q, then W_K and W_V of the head shown, then on hidden random cases of other shapes (`[n, k] · [k, m]` gives `[n, m]`).",
            "template": """\
def matmul(x, w):
    # 'x' is the input X, shape [T, d_model]: one row per token.
    # 'w' is a learned matrix (W_Q here), shape [d_model, d_head].
    # No helper is defined: write the loops yourself.
    #
    # Write the matrix multiplication x · w.
    # The same routine serves for K and V.
    #   result[i][j] = dot product of row i of x with column j of w
    #
    # Return the [T, d_head] result: each row is one token's query.
    return []
""",
            "hint": "`list(zip(*w))` gives the columns of `w`; each output cell is the dot product of a row of `x` with a column of `w`. The result has `len(x)` rows and `len(w[0])` columns.",
        },
        "fr": {
            "title": "À toi : la multiplication de matrices pour Q",
            "instructions": "Écris la multiplication de matrices pour Q. La même routine sert pour K et V. `matmul(x, w)` reçoit l’entrée `x` = X, `[T, d_model]` (T tokens, une ligne chacun), et une matrice apprise `w` = W_Q de la tête affichée, `[d_model, d_head]` ; elle retourne `x · w`, `[T, d_head]` : chaque ligne est la query d’un token. Aucune fonction auxiliaire n’est définie pour cette cellule : écris-la avec des boucles ou des compréhensions (tu peux définir ton propre `dot` au-dessus). Ta fonction est vérifiée sur les réglages actuels de la page, avec W_Q, puis W_K et W_V de la tête affichée, puis sur des cas aléatoires cachés d’autres formes (`[n, k] · [k, m]` donne `[n, m]`).",
            "template": """\
def matmul(x, w):
    # 'x' est l’entrée X, de forme [T, d_model] : une ligne par token.
    # 'w' est une matrice apprise (ici W_Q), de forme [d_model, d_head].
    # Aucune fonction auxiliaire n’est définie : écris les boucles
    # toi-même.
    #
    # Écris la multiplication de matrices x · w.
    # La même routine sert pour K et V.
    #   résultat[i][j] = produit scalaire de la ligne i de x
    #                    et de la colonne j de w
    #
    # Retourne le résultat [T, d_head] : chaque ligne est la query
    # d’un token.
    return []
""",
            "hint": "`list(zip(*w))` donne les colonnes de `w` ; chaque case du résultat est le produit scalaire d’une ligne de `x` et d’une colonne de `w`. Le résultat a `len(x)` lignes et `len(w[0])` colonnes.",
        },
    },
    "scores": {
        "en": {
            "title": "Your turn: score every pair",
            "instructions": "Compute S with dot products: `attention_scores(q, k)` receives the queries `q` and the keys `k` of the head shown, both `[T, d_head]`, and returns S, `[T, T]`, where `S[i][j] = q[i] · k[j]` means: “how relevant is token j to token i?” (rows = query, columns = key; no division by √d_k yet, that is the next step). `dot(a, b)` is already defined: you may call it. Your function is checked on the page’s current settings, then on hidden random cases of other shapes.",
            "template": """\
def attention_scores(q, k):
    # 'q' holds the queries, shape [T, d_head]:
    #   row i is token i's query.
    # 'k' holds the keys, shape [T, d_head]:
    #   row j is token j's key.
    # The script defines dot(a, b).
    #
    # Score every pair with a dot product:
    #   S[i][j] = q[i] · k[j]   (how relevant is token j to token i?)
    # Rows are queries (who looks), columns are keys (who is looked at).
    # No scaling yet: dividing by sqrt(d_k) is the next step.
    #
    # Return the [T, T] matrix S.
    return []
""",
            "hint": "Loop over the queries for the rows and over the keys for the columns. S is usually not symmetric, so `S[i][j]` must use `q[i]` and `k[j]`, not the other way round.",
        },
        "fr": {
            "title": "À toi : scorer chaque paire",
            "instructions": "Calcule S avec des produits scalaires : `attention_scores(q, k)` reçoit les queries `q` et les keys `k` de la tête affichée, toutes deux `[T, d_head]`, et retourne S, `[T, T]`, où `S[i][j] = q[i] · k[j]` signifie : « à quel point le token j est pertinent pour le token i ? » (lignes = query, colonnes = key ; pas encore de division par √d_k, c’est l’étape suivante). `dot(a, b)` est déjà défini : tu peux l’appeler. Ta fonction est vérifiée sur les réglages actuels de la page, puis sur des cas aléatoires cachés d’autres formes.",
            "template": """\
def attention_scores(q, k):
    # 'q' contient les queries, de forme [T, d_head] :
    #   la ligne i est la query du token i.
    # 'k' contient les keys, de forme [T, d_head] :
    #   la ligne j est la key du token j.
    # Le script définit dot(a, b).
    #
    # Score chaque paire avec un produit scalaire :
    #   S[i][j] = q[i] · k[j]   (à quel point le token j est-il pertinent
    #                            pour le token i ?)
    # Lignes = queries (qui regarde), colonnes = keys (qui est regardé).
    # Pas encore de mise à l’échelle : diviser par sqrt(d_k) est l’étape
    # suivante.
    #
    # Retourne la matrice S [T, T].
    return []
""",
            "hint": "Parcours les queries pour les lignes et les keys pour les colonnes. S n’est en général pas symétrique : `S[i][j]` doit utiliser `q[i]` et `k[j]`, pas l’inverse.",
        },
    },
    "softmax": {
        "en": {
            "title": "Your turn: scale, mask, softmax",
            "instructions": "`scale_mask_softmax(scores, d_k, causal)` turns the scores into the pattern, row by row. It receives the scores S, `[T, T]`, the key size `d_k` (= d_head, an integer) and `causal`, True or False: when it is True, every cell `j > i` (the future) is masked before the softmax, so its probability ends at exactly 0. Return the pattern A, `[T, T]`, each row summing to 1; no helper is defined for this cell, but `exp` and `sqrt` (or `math.exp`, `math.sqrt`) are available. Your function is checked on the page’s current settings, then on hidden random cases of other shapes, with the mask on and off.",
            "template": """\
def scale_mask_softmax(scores, d_k, causal):
    # 'scores' is S, shape [T, T]: rows = query, columns = key.
    # 'd_k' is the size of a key (d_head), an integer.
    # 'causal' is True or False.
    #
    # For each row i:
    # 1. Scale: divide every score by sqrt(d_k).
    # 2. Mask: if causal is True, token i may only read tokens 0..i.
    #    Give every cell j > i the score float("-inf") (or a very
    #    negative number like -1e9) before the softmax, so that its
    #    probability ends at 0. If causal is False, mask nothing.
    # 3. Softmax: subtract the row's max, take exp of each score,
    #    divide each exp by the sum of the row's exps.
    #
    # Return the [T, T] pattern A: every row sums to 1.
    return []
""",
            "hint": 'Work on one row at a time with `enumerate`, so you know both i and j: scale and mask the row first, then subtract its max before `exp` (with `float("-inf")`, the masked cells become exactly 0). The softmax runs along a row, never down a column.',
        },
        "fr": {
            "title": "À toi : échelle, masque, softmax",
            "instructions": "`scale_mask_softmax(scores, d_k, causal)` transforme les scores en motif, ligne par ligne. Elle reçoit les scores S, `[T, T]`, la taille d’une key `d_k` (= d_head, un entier) et `causal`, True ou False : quand il vaut True, chaque case `j > i` (le futur) est masquée avant la softmax, pour que sa probabilité finisse exactement à 0. Retourne le motif A, `[T, T]`, dont chaque ligne a pour somme 1 ; aucune fonction auxiliaire n’est définie pour cette cellule, mais `exp` et `sqrt` (ou `math.exp`, `math.sqrt`) sont disponibles. Ta fonction est vérifiée sur les réglages actuels de la page, puis sur des cas aléatoires cachés d’autres formes, avec et sans masque.",
            "template": """\
def scale_mask_softmax(scores, d_k, causal):
    # 'scores' est S, de forme [T, T] :
    #   lignes = query, colonnes = key.
    # 'd_k' est la taille d’une key (d_head), un entier.
    # 'causal' vaut True ou False.
    #
    # Pour chaque ligne i :
    # 1. Échelle : divise chaque score par sqrt(d_k).
    # 2. Masque : si causal vaut True, le token i ne peut lire que 0..i.
    #    Donne à chaque case j > i le score float("-inf") (ou un nombre
    #    très négatif comme -1e9) avant la softmax, pour que sa
    #    probabilité finisse à 0. Si causal vaut False, ne masque rien.
    # 3. Softmax : soustrais le max de la ligne, prends l’exp de chaque
    #    score, divise chaque exp par la somme des exp de la ligne.
    #
    # Retourne le motif A [T, T] : chaque ligne a pour somme 1.
    return []
""",
            "hint": 'Travaille ligne par ligne avec `enumerate`, pour connaître à la fois i et j : mets la ligne à l’échelle et masque-la d’abord, puis soustrais son max avant `exp` (avec `float("-inf")`, les cases masquées deviennent exactement 0). La softmax se fait le long d’une ligne, jamais le long d’une colonne.',
        },
    },
    "mix": {
        "en": {
            "title": "Your turn: mix the values",
            "instructions": "Write `output = A · V` with loops: `mix_values(pattern, v)` receives the pattern A of the head shown, `[T, T]`, and its values `v`, `[T, d_head]`; row i of the output is `Σ_j A[i][j] × v[j]`, so the result is `[T, d_head]`. No helper is defined for this cell. Your function is checked on the page’s current settings, then on hidden random cases of other shapes.",
            "template": """\
def mix_values(pattern, v):
    # 'pattern' is the attention pattern A, shape [T, T]:
    #   row i says how much of each value token i takes (it sums to 1).
    # 'v' holds the values, shape [T, d_head]:
    #   row j is token j's value.
    #
    # Each token's output is a weighted sum of the value rows:
    #   out[i][d] = sum over j of pattern[i][j] * v[j][d]
    # In matrix form: output = A · V.
    #
    # Return the [T, d_head] output.
    return []
""",
            "hint": "Row i of the output uses row i of the pattern, not column i: pair `pattern[i][j]` with the value row `v[j]`. `zip(pattern[i], v)` walks the probabilities and the value rows together.",
        },
        "fr": {
            "title": "À toi : mélanger les values",
            "instructions": "Écris `output = A · V` avec des boucles : `mix_values(pattern, v)` reçoit le motif A de la tête affichée, `[T, T]`, et ses values `v`, `[T, d_head]` ; la ligne i de la sortie est `Σ_j A[i][j] × v[j]`, donc le résultat est `[T, d_head]`. Aucune fonction auxiliaire n’est définie pour cette cellule. Ta fonction est vérifiée sur les réglages actuels de la page, puis sur des cas aléatoires cachés d’autres formes.",
            "template": """\
def mix_values(pattern, v):
    # 'pattern' est le motif d’attention A, de forme [T, T] :
    #   la ligne i dit quelle part de chaque value prend le token i
    #   (sa somme vaut 1).
    # 'v' contient les values, de forme [T, d_head] :
    #   la ligne j est la value du token j.
    #
    # La sortie de chaque token est une somme pondérée des lignes de values :
    #   out[i][d] = somme sur j de pattern[i][j] * v[j][d]
    # Sous forme matricielle : output = A · V.
    #
    # Retourne la sortie [T, d_head].
    return []
""",
            "hint": "La ligne i de la sortie utilise la ligne i du motif, pas la colonne i : associe `pattern[i][j]` à la ligne de values `v[j]`. `zip(pattern[i], v)` parcourt ensemble les probabilités et les lignes de values.",
        },
    },
    "entropy": {
        "en": {
            "title": "Your turn: the entropy of each head",
            "instructions": "Compute the average entropy of each head. `head_entropies(patterns)` receives the attention patterns of the H heads, a list of H matrices `[T, T]`, and returns a list of H numbers: for each head, the mean over its rows of `−Σ p log p`, with the natural log and `0 · log 0 = 0` (skip p = 0: the causal mask leaves many exact zeros). No helper is defined for this cell, but `log` (or `math.log`) is available. Your function is checked on the page’s current settings, then on hidden random cases of other shapes and other numbers of heads.",
            "template": """\
def head_entropies(patterns):
    # 'patterns' is a list of H attention patterns, one per head,
    # each [T, T].
    # Compute the average Shannon entropy of each head's attention rows:
    #   row_entropy = -Σ p_i * log(p_i)   (natural log: log or math.log)
    #   head_entropy = mean(row_entropy over rows)
    # 0 * log(0) counts as 0: skip p = 0 (the masked cells).
    #
    # Low entropy → the head focuses on a few tokens (concentrated pattern).
    # High entropy → it spreads attention evenly (no clear preference).
    # Return a list of H entropies, one per head.
    return []
""",
            "hint": "Work in two steps: first the entropy of one row, a sum over its probabilities that leaves out p = 0 (a comprehension can end with `if p > 0`); then the mean of those row entropies for one head. Mind the minus sign: every entropy is ≥ 0.",
        },
        "fr": {
            "title": "À toi : l’entropie de chaque tête",
            "instructions": "Calcule l’entropie moyenne de chaque tête. `head_entropies(patterns)` reçoit les motifs d’attention des H têtes, une liste de H matrices `[T, T]`, et retourne une liste de H nombres : pour chaque tête, la moyenne sur ses lignes de `−Σ p log p`, avec le logarithme naturel et `0 · log 0 = 0` (saute p = 0 : le masque causal laisse beaucoup de zéros exacts). Aucune fonction auxiliaire n’est définie pour cette cellule, mais `log` (ou `math.log`) est disponible. Ta fonction est vérifiée sur les réglages actuels de la page, puis sur des cas aléatoires cachés d’autres formes et d’autres nombres de têtes.",
            "template": """\
def head_entropies(patterns):
    # 'patterns' est une liste de H motifs d’attention, un par tête,
    # chacun [T, T].
    # Calcule l’entropie de Shannon moyenne des lignes de chaque tête :
    #   entropie_ligne = -Σ p_i * log(p_i)   (log naturel : log ou math.log)
    #   entropie_tête = moyenne(entropie_ligne sur les lignes)
    # 0 * log(0) compte pour 0 : saute p = 0 (les cases masquées).
    #
    # Entropie basse → la tête se concentre sur peu de tokens (motif net).
    # Entropie haute → elle répartit l’attention uniformément
    #                  (pas de préférence claire).
    # Retourne une liste de H entropies, une par tête.
    return []
""",
            "hint": "Procède en deux étapes : d’abord l’entropie d’une ligne, une somme sur ses probabilités qui laisse de côté p = 0 (une compréhension peut finir par `if p > 0`) ; puis la moyenne de ces entropies de lignes pour une tête. Attention au signe moins : toute entropie est ≥ 0.",
        },
    },
    "combine": {
        "en": {
            "title": "Your turn: combine the heads",
            "instructions": "The cell combines the outputs of the heads: concatenate them along the feature axis, then project the result through a learned W_O. `combine_heads(head_outputs, w_o)` receives a list of H head outputs, each `[T, d_head]`, and the output projection `w_o`, `[d_model, d_model]` with d_model = H × d_head; it returns the `[T, d_model]` result. The script defines `matmul(a, b)`: you may call it. Your function is checked on the page’s current settings, then on hidden random cases of other shapes and other numbers of heads.",
            "template": """\
def combine_heads(head_outputs, w_o):
    # 'head_outputs' is a list of H head outputs, each [T, d_head].
    # 'w_o' is the output projection matrix, shape [d_model, d_model].
    # The script defines matmul(a, b).
    #
    # 1. Concatenate every head's output along the feature axis.
    #    Each token's row becomes [head0_out..., head1_out..., ...].
    # 2. Project the concatenated matrix through w_o.
    # 3. Return the [T, d_model] result.
    return []
""",
            "hint": "With lists, `+` glues two rows end to end: `[1, 2] + [3]` is `[1, 2, 3]`. Build row i of the concatenation from row i of every head, in head order, then a single `matmul` does the projection.",
        },
        "fr": {
            "title": "À toi : combiner les têtes",
            "instructions": "La cellule combine les sorties des têtes : les concaténer sur l’axe des features, puis projeter le résultat à travers un W_O appris. `combine_heads(head_outputs, w_o)` reçoit une liste de H sorties de têtes, chacune `[T, d_head]`, et la projection de sortie `w_o`, `[d_model, d_model]` avec d_model = H × d_head ; elle retourne le résultat `[T, d_model]`. Le script définit `matmul(a, b)` : tu peux l’appeler. Ta fonction est vérifiée sur les réglages actuels de la page, puis sur des cas aléatoires cachés d’autres formes et d’autres nombres de têtes.",
            "template": """\
def combine_heads(head_outputs, w_o):
    # 'head_outputs' est une liste de H sorties de têtes,
    # chacune [T, d_head].
    # 'w_o' est la matrice de projection de sortie, de forme
    # [d_model, d_model].
    # Le script définit matmul(a, b).
    #
    # 1. Concatène la sortie de chaque tête sur l’axe des features.
    #    La ligne de chaque token devient
    #    [sortie_tête0..., sortie_tête1..., ...].
    # 2. Projette la matrice concaténée à travers w_o.
    # 3. Retourne le résultat [T, d_model].
    return []
""",
            "hint": "Avec des listes, `+` colle deux lignes bout à bout : `[1, 2] + [3]` vaut `[1, 2, 3]`. Construis la ligne i de la concaténation à partir de la ligne i de chaque tête, dans l’ordre des têtes, puis un seul `matmul` fait la projection.",
        },
    },
    "add_norm": {
        "en": {
            "title": "Your turn: residual + LayerNorm",
            "instructions": "Run the recipe of each sublayer: the residual connection `x + sublayer(x)`, then LayerNorm. `add_and_norm(x, sublayer_out, eps)` gets the original input `x` (X, `[T, d_model]`) and `sublayer_out` (the multi-head output, same shape), plus a small `eps` for numerical stability in the division by the standard deviation (the page’s eps, 1e-5 in the chapter). Return the normalised `[T, d_model]` matrix: each row of the sum minus its mean, divided by `√(var + eps)`, so that every row has mean ≈ 0 and std ≈ 1. No helper is defined for this cell, but `sqrt` (or `math.sqrt`) is available. Your function is checked on the page’s current settings, then on hidden random cases of other shapes.",
            "template": """\
def add_and_norm(x, sublayer_out, eps):
    # 'x' is the original X (the input to the attention sublayer).
    # 'sublayer_out' is what came out of the attention sublayer.
    # 'eps' is a small constant (1e-5) for numerical stability.
    #
    # 1. Residual: add x + sublayer_out element-wise.
    # 2. LayerNorm: for each row, subtract its mean and divide by its
    #    standard deviation (with the eps added inside the sqrt).
    #
    # Return the normalised [T, d_model] matrix. Each row should
    # have mean ≈ 0 and std ≈ 1.
    return sublayer_out
""",
            "hint": "Normalise the rows of the sum `x + sublayer_out`, not of `x` alone. The variance is the mean of `(value - mean) ** 2` over the row: divide by `len(row)`, not `len(row) - 1`, and put eps inside the square root.",
        },
        "fr": {
            "title": "À toi : résiduel + LayerNorm",
            "instructions": "Exécute la recette de chaque sous-couche : la connexion résiduelle `x + sublayer(x)`, puis la LayerNorm. `add_and_norm(x, sublayer_out, eps)` reçoit l’entrée d’origine `x` (X, `[T, d_model]`) et `sublayer_out` (la sortie multi-têtes, de même forme), plus un petit `eps` pour la stabilité numérique dans la division par l’écart-type (l’eps de la page, 1e-5 dans le chapitre). Retourne la matrice normalisée `[T, d_model]` : chaque ligne de la somme moins sa moyenne, divisée par `√(var + eps)`, pour que chaque ligne ait une moyenne ≈ 0 et un écart-type ≈ 1. Aucune fonction auxiliaire n’est définie pour cette cellule, mais `sqrt` (ou `math.sqrt`) est disponible. Ta fonction est vérifiée sur les réglages actuels de la page, puis sur des cas aléatoires cachés d’autres formes.",
            "template": """\
def add_and_norm(x, sublayer_out, eps):
    # 'x' est le X d’origine (l’entrée de la sous-couche d’attention).
    # 'sublayer_out' est ce qui est sorti de la sous-couche d’attention.
    # 'eps' est une petite constante (1e-5) pour la stabilité numérique.
    #
    # 1. Résiduel : additionne x + sublayer_out case par case.
    # 2. LayerNorm : pour chaque ligne, soustrais sa moyenne et divise par
    #    son écart-type (avec eps ajouté sous la racine carrée).
    #
    # Retourne la matrice normalisée [T, d_model]. Chaque ligne
    # doit avoir une moyenne ≈ 0 et un écart-type ≈ 1.
    return sublayer_out
""",
            "hint": "Normalise les lignes de la somme `x + sublayer_out`, pas celles de `x` seul. La variance est la moyenne de `(value - mean) ** 2` sur la ligne : divise par `len(row)`, pas par `len(row) - 1`, et mets eps sous la racine carrée.",
        },
    },
    "attention": {
        "en": {
            "title": "Your turn: causal attention in one function",
            "instructions": "Now the whole head in one function, as in the chapter’s `llm/attention.py`: `causal_attention(x, wq, wk, wv)` receives the input `x`, `[T, d_model]`, and the three learned matrices W_Q, W_K, W_V of the head shown, each `[d_model, d_head]`, and returns the `[T, d_head]` output. The causal mask is crucial, and always on here: token i may only read tokens 0..i. The script defines `dot(a, b)`, `softmax(values)` (one row of scores to a distribution) and `matmul(x, w)`: you may call them. Your function is checked on the page’s current settings, then on hidden random cases of other shapes.",
            "template": """\
def causal_attention(x, wq, wk, wv):
    # 'x' is the input X, shape [T, d_model].
    # 'wq', 'wk', 'wv' are the learned matrices W_Q, W_K, W_V of one head,
    # each [d_model, d_head].
    # The script defines dot(a, b), softmax(values) and matmul(x, w).
    #
    # [1] Compute the three learned views of x: q, k and v.
    # Then, for each token i:
    # [2] Compare the query of token i with every key (dot product
    #     divided by sqrt(d_k)). j <= i is the causal mask: a key j > i
    #     gets the score float("-inf") (or -1e9).
    # [3] Turn the scores into a distribution (softmax).
    # [4] Build the pattern-weighted average of the value rows.
    #
    # Return the [T, d_head] output, one row per token.
    return []
""",
            "hint": "`d_k` is the number of columns of k, `len(k[0])`. Grow the output row by row with `out.append(row)`, as the chapter does, or build it with one comprehension over `enumerate(q)`.",
        },
        "fr": {
            "title": "À toi : l’attention causale en une fonction",
            "instructions": "Maintenant toute la tête en une fonction, comme dans le `llm/attention.py` du chapitre : `causal_attention(x, wq, wk, wv)` reçoit l’entrée `x`, `[T, d_model]`, et les trois matrices apprises W_Q, W_K, W_V de la tête affichée, chacune `[d_model, d_head]`, et retourne la sortie `[T, d_head]`. Le masque causal est crucial, et toujours actif ici : le token i ne peut lire que 0..i. Le script définit `dot(a, b)`, `softmax(values)` (une ligne de scores vers une distribution) et `matmul(x, w)` : tu peux les appeler. Ta fonction est vérifiée sur les réglages actuels de la page, puis sur des cas aléatoires cachés d’autres formes.",
            "template": """\
def causal_attention(x, wq, wk, wv):
    # 'x' est l’entrée X, de forme [T, d_model].
    # 'wq', 'wk', 'wv' sont les matrices apprises W_Q, W_K, W_V d’une tête,
    # chacune [d_model, d_head].
    # Le script définit dot(a, b), softmax(values) et matmul(x, w).
    #
    # [1] Calcule les trois vues apprises de x : q, k et v.
    # Puis, pour chaque token i :
    # [2] Compare la query du token i à toutes les keys (produit scalaire
    #     divisé par sqrt(d_k)). j <= i est le masque causal : une key
    #     j > i reçoit le score float("-inf") (ou -1e9).
    # [3] Transforme les scores en distribution (softmax).
    # [4] Construis la moyenne des lignes de values pondérée par le motif.
    #
    # Retourne la sortie [T, d_head], une ligne par token.
    return []
""",
            "hint": "`d_k` est le nombre de colonnes de k, `len(k[0])`. Fais grandir la sortie ligne par ligne avec `out.append(row)`, comme le chapitre, ou construis-la avec une seule compréhension sur `enumerate(q)`.",
        },
    },
    "depth": {
        "en": {
            "title": "Your turn: the recipe, layer after layer",
            "instructions": "Stack the chapter’s recipe: every layer does `x = LayerNorm(x + sublayer(x))`, and the next layer reads what this one returns. `stack_post_ln(x, ws, eps)` receives the input `x` (X, `[T, d_model]`), a list `ws` of L matrices `[d_model, d_model]`, one per layer, and LayerNorm’s `eps`. To keep the cell short, layer l’s sublayer is the linear map `matmul(x, ws[l])` instead of a whole attention (here, W_O of layer l, drawn as on this page): the recipe around it is the same. LayerNorm normalises each row on its own, with the population variance and eps inside the square root, without gain or bias. Return the `[T, d_model]` output of the last layer. The script defines `matmul(a, b)`: you may call it, and `sqrt` (or `math.sqrt`) is available. Your function is checked on the page’s current settings (the page’s X and its first layers, up to 6), then on hidden random cases of other shapes and other numbers of layers.",
            "template": """\
def stack_post_ln(x, ws, eps):
    # 'x' is the input X, shape [T, d_model]: one row per token.
    # 'ws' is a list of L matrices, one per layer, each [d_model, d_model]:
    #   layer l's sublayer is the linear map matmul(x, ws[l]).
    # 'eps' is LayerNorm's small constant (1e-5).
    # The script defines matmul(a, b).
    #
    # For each layer, in order, apply the chapter's recipe:
    #   x = LayerNorm(x + sublayer(x))
    # The next layer reads the x this layer returns.
    # LayerNorm, row by row: subtract the row's mean, divide by
    # sqrt(variance + eps), the variance dividing by the row's length.
    #
    # Return the [T, d_model] output of the last layer.
    return []
""",
            "hint": "Write `add` and `layer_norm` first (as on page 7), then one loop over `ws` that replaces `x` with `layer_norm(add(x, matmul(x, w)), eps)`. The residual is added before the LayerNorm, not after it; and every layer must read the `x` of the layer before, not the input.",
        },
        "fr": {
            "title": "À toi : la recette, couche après couche",
            "instructions": "Empile la recette du chapitre : chaque couche fait `x = LayerNorm(x + sublayer(x))`, et la couche suivante lit ce que celle-ci retourne. `stack_post_ln(x, ws, eps)` reçoit l’entrée `x` (X, `[T, d_model]`), une liste `ws` de L matrices `[d_model, d_model]`, une par couche, et la valeur `eps` de la LayerNorm. Pour garder la cellule courte, la sous-couche de la couche l est l’application linéaire `matmul(x, ws[l])` au lieu d’une attention entière (ici, le W_O de la couche l, tiré comme sur cette page) : la recette autour est la même. La LayerNorm normalise chaque ligne séparément, avec la variance de la population et eps sous la racine carrée, sans gain ni biais. Retourne la sortie `[T, d_model]` de la dernière couche. Le script définit `matmul(a, b)` : tu peux l’appeler, et `sqrt` (ou `math.sqrt`) est disponible. Ta fonction est vérifiée sur les réglages actuels de la page (le X de la page et ses premières couches, jusqu’à 6), puis sur des cas aléatoires cachés d’autres formes et d’autres nombres de couches.",
            "template": """\
def stack_post_ln(x, ws, eps):
    # 'x' est l’entrée X, de forme [T, d_model] : une ligne par token.
    # 'ws' est une liste de L matrices, une par couche, chacune
    # [d_model, d_model] : la sous-couche de la couche l est
    # l’application linéaire matmul(x, ws[l]).
    # 'eps' est la petite constante de la LayerNorm (1e-5).
    # Le script définit matmul(a, b).
    #
    # Pour chaque couche, dans l’ordre, applique la recette du chapitre :
    #   x = LayerNorm(x + sublayer(x))
    # La couche suivante lit le x que retourne celle-ci.
    # LayerNorm, ligne par ligne : soustrais la moyenne de la ligne, divise
    # par sqrt(variance + eps), la variance divisant par la longueur.
    #
    # Retourne la sortie [T, d_model] de la dernière couche.
    return []
""",
            "hint": "Écris d’abord `add` et `layer_norm` (comme à la page 7), puis une seule boucle sur `ws` qui remplace `x` par `layer_norm(add(x, matmul(x, w)), eps)`. Le résiduel s’ajoute avant la LayerNorm, pas après ; et chaque couche doit lire le `x` de la couche d’avant, pas l’entrée.",
        },
    },
}
