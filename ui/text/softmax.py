"""Texts of page 3, scale, mask and softmax (chapter 8, cell 3)."""

TEXT = {
    "en": {
        "title": "3. Scale, mask, softmax",
        "intro": "The scores are not probabilities yet. Two transformations turn them into probabilities, row by row: divide by √d_k, then apply softmax to each row. Each row of the heatmap says, for one token, what fraction of its updated representation will come from each other token. The rows sum to 1: they are real distributions.",
        "mask": "With the causal mask, token i may only read tokens 0..i: the future gets a score of −∞ before the softmax, so its probability is exactly 0. Otherwise, during next-token training, it could look at the answer.",
        "no_mask": "The causal mask is off: every token may read every other token, the future included.",
        "scaled": "Scaled scores S / √d_k  (√{d_k} = {sqrt_dk:.4f})",
        "masked": "Masked: −∞ where j > i",
        "pattern": "Softmax: the attention pattern A",
        "row_sums": "Row sums of A",
        "query": "query (who looks)",
        "key": "key (who is looked at)",
        "masked_cell": "masked (−∞ before softmax, 0 after)",
        "code": "The readable code of this step",
        "engine_note": "The numbers above come from the vectorized engine (llm/engine.py). The readable code below, run on the same X and weights, gives the same pattern A: the largest difference is {diff}.",
    },
    "fr": {
        "title": "3. Échelle, masque, softmax",
        "intro": "Les scores ne sont pas encore des probabilités. Deux transformations les convertissent ligne par ligne : diviser par √d_k, puis appliquer softmax à chaque ligne. Chaque ligne de la heatmap dit, pour un token donné, quelle fraction de sa représentation mise à jour viendra de chaque autre token. Les lignes somment à 1 : ce sont de vraies distributions.",
        "mask": "Avec le masque causal, le token i ne peut lire que 0..i : le futur reçoit un score de −∞ avant la softmax, donc une probabilité exactement nulle. Sinon, pendant l’entraînement next-token, il pourrait regarder la réponse.",
        "no_mask": "Le masque causal est coupé : chaque token peut lire tous les autres, futur compris.",
        "scaled": "Scores mis à l’échelle S / √d_k  (√{d_k} = {sqrt_dk:.4f})",
        "masked": "Masqués : −∞ là où j > i",
        "pattern": "Softmax : le motif d’attention A",
        "row_sums": "Sommes des lignes de A",
        "query": "query (qui regarde)",
        "key": "key (qui est regardé)",
        "masked_cell": "masqué (−∞ avant softmax, 0 après)",
        "code": "Le code lisible de cette étape",
        "engine_note": "Les nombres ci-dessus viennent du moteur vectorisé (llm/engine.py). Le code lisible ci-dessous, sur les mêmes X et poids, donne le même motif : la plus grande différence est de {diff}.",
    },
}
