"""Texts of page 1, project X into Q, K, V (chapter 8, cell 1)."""

TEXT = {
    "en": {
        "title": "1. Project into Q, K, V",
        "intro": "An attention head has three learned matrices: W_Q, W_K, W_V. Multiplying the input X by each one produces the queries, keys and values. The result is [seq_len × d_head]: each row of Q is one token’s query, each row of K its key, each row of V its value.",
        "intuition": "Intuition",
        "queries": "**Queries**: “what am I looking for?”",
        "keys": "**Keys**: “here is what I have”",
        "values": "**Values**: “here is what I will bring if you pick me”",
        "x_head": "X: the sentence as numbers",
        "x_seeded": "One row per token, one column per feature (d_model = {d_model}). The same token always gets the same row, a random vector drawn from the seed.",
        "x_handmade": "Chapter 8’s hand-made 4-D embeddings: each column is one readable feature ({features}).",
        "w_head": "The learned matrices of head {head}",
        "w_caption": "Each is [d_model × d_head] = [{d_model} × {d_head}]. Row r says how feature r of X feeds each column of Q, K or V. Here they are drawn from the seed; training would adjust them.",
        "qkv_head": "Queries, keys and values",
        "qkv_caption": "Row i of Q is row i of X times W_Q: the same matrix for every token, so the same token always gets the same query.",
        "x_map": "X  [{t} × {d_model}]",
        "q_map": "Q = X·W_Q: what am I looking for?",
        "k_map": "K = X·W_K: here is what I have",
        "v_map": "V = X·W_V: what I will bring",
        "token": "token",
        "feature": "feature",
        "code": "The code that computed these numbers",
    },
    "fr": {
        "title": "1. Projeter en Q, K, V",
        "intro": "Une tête d’attention a trois matrices apprises : W_Q, W_K, W_V. Multiplier l’entrée X par chacune produit les queries, keys et values. Le résultat est [seq_len × d_head] : chaque ligne de Q est la query d’un token, chaque ligne de K sa key, chaque ligne de V sa value.",
        "intuition": "Intuition",
        "queries": "**Queries** : “qu’est-ce que je cherche ?”",
        "keys": "**Keys** : “voilà ce que j’ai”",
        "values": "**Values** : “voilà ce que j’apporterai si tu me choisis”",
        "x_head": "X : la phrase en nombres",
        "x_seeded": "Une ligne par token, une colonne par feature (d_model = {d_model}). Le même token a toujours la même ligne, un vecteur aléatoire tiré de la graine.",
        "x_handmade": "Les embeddings 4D faits à la main du chapitre 8 : chaque colonne est une feature lisible ({features}).",
        "w_head": "Les matrices apprises de la tête {head}",
        "w_caption": "Chacune est [d_model × d_head] = [{d_model} × {d_head}]. La ligne r dit comment la feature r de X alimente chaque colonne de Q, K ou V. Ici elles sont tirées de la graine ; l’entraînement les ajusterait.",
        "qkv_head": "Queries, keys et values",
        "qkv_caption": "La ligne i de Q est la ligne i de X fois W_Q : la même matrice pour chaque token, donc le même token a toujours la même query.",
        "x_map": "X  [{t} × {d_model}]",
        "q_map": "Q = X·W_Q : qu’est-ce que je cherche ?",
        "k_map": "K = X·W_K : voilà ce que j’ai",
        "v_map": "V = X·W_V : ce que j’apporterai",
        "token": "token",
        "feature": "feature",
        "code": "Le code qui a calculé ces nombres",
    },
}

# chapter 8's hand-made features (llm.HANDMADE_FEATURES), by their English name
FEATURES = {
    "en": {"noun": "noun", "verb": "verb", "little word": "little word", "alive": "alive"},
    "fr": {"noun": "nom", "verb": "verbe", "little word": "petit mot", "alive": "vivant"},
}
